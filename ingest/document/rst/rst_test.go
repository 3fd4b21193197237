package rst

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// TestRSTGuide reads testdata/widget.rst, an invented project's guide that
// uses every construct the reader knows.
func TestRSTGuide(t *testing.T) {
	d := parseFile(t, "widget.rst", document.RST)
	if d.Title != "Widget" || d.Format != document.RST {
		t.Errorf("title %q, format %q", d.Title, d.Format)
	}
	doctest.CheckLines(t, "sections", doctest.SectionPaths(d), []string{
		"Widget#widget@9",
		"Widget › Install#install@29",
		"Widget › Configuring widget#configuring-widget@67",
		"Widget › Configuring widget › Tables#tables@99",
		"Widget › Configuring widget › Directives#directives@138",
		"Widget › Configuring widget › API#api@216",
		"Widget › Configuring widget › API › Notes#notes@247",
	})
	doctest.CheckLines(t, "blocks", doctest.ManBlocks(d), []string{
		"definition|Author||Author: Ada Example|12",
		"definition|Version||Version: 2.1|13",
		"paragraph|||Widget tunes gadgets over TCP. It reads ~/.widgetrc, follows the setup guide and tuning, calls tune, " +
			"keeps LIFO (last-in, first-out) order and stops on Ctrl+C. See the homepage, Setup, Quick start and the forum. " +
			"Tuning is safe and fast. A snake_case name, a*b and 2 * 3 stay, and so do *escaped* stars. " +
			"Widget Pro is © 2024 Widget Makers.|15",
		"paragraph|||Widget is fast.|27",
		"paragraph|||Run this:|32",
		"code|||$ pip install widget|34",
		"paragraph|||Then check it|36",
		"code|||$ widget --version|38",
		"code|||literal after a lone marker|42",
		"list-item|||First bullet continued.|44",
		"list-item|||Second bullet with a nested list:|46",
		"list-item|||Nested one.|48",
		"list-item|||Nested two.|49",
		"list-item|||Plus bullet.|51",
		"list-item|||First step.|53",
		"list-item|||Second step.|54",
		"paragraph|||Or:|56",
		"list-item|||Auto one.|58",
		"list-item|||Auto two.|59",
		"list-item|||Letter item.|61",
		"list-item|||Another letter item.|62",
		"paragraph|||A. Einstein was not a list item, he was a physicist.|64",
		"definition|level||level: How hard to tune.|70",
		"definition|mode|level|mode: A nested definition.|73",
		"list-item||level|A list under level.|76",
		"definition|param gadget||param gadget: The gadget to tune.|78",
		"definition|returns||returns: The tuned gadget.|79",
		"definition|-q, --quiet||-q, --quiet: Print nothing.|81",
		"definition|--level=N||--level=N: Tune N times.|82",
		"definition|-o FILE||-o FILE: Write to FILE.|83",
		"paragraph|||Gadgets say:|86",
		"quote|||Widgets hum when tuned.|88",
		"quote|||Ada Example|90",
		"paragraph|||Line one Line two continued.|92",
		"code|||>>> import widget\n>>> widget.tune()|96",
		"table-row|||Name: fast; Meaning: Skip checks.|105",
		"table-row|||Name: safe; Meaning: Check twice, then tune.|106",
		"table-row|||a; b|111",
		"table-row|||c; d|112",
		"table-row|||Option: -q; Effect: Quiet, no output.|118",
		"table-row|||Option: -v; Effect: Verbose.|121",
		"paragraph|||Gadget sizes|124",
		"table-row|||Gadget: Sprocket; Size: small|127",
		"table-row|||Gadget: Flywheel, big; Size: large|128",
		"paragraph|||Ports|130",
		"table-row|||Port: 8080; Use: HTTP|135",
		"paragraph|||Tuning takes time.|141",
		"paragraph|||Be patient.|143",
		"paragraph|||Never tune twice.|147",
		"paragraph|||Custom body.|151",
		"paragraph|||Added in version 2.0: The level option.|153",
		"paragraph|||Changed in version 2.1: Quiet mode prints nothing.|158",
		"paragraph|||Deprecated since version 2.1: Use --level instead.|160",
		"paragraph|||install|162",
		"paragraph|||The tuning flow.|170",
		"code|||widget.tune(level=2)|181",
		"paragraph|||Why widgets?|183",
		"paragraph|||Because gadgets need them.|185",
		"paragraph|||A tip in a container.|191",
		"code|||digraph { a -> b; }|195",
		"paragraph|||Prose in an unknown directive.|200",
		"code|||E = mc^2|208",
		"definition|gadget, gizmo||gadget, gizmo: A thing that widgets tune.|212",
		"definition|tune(gadget, level=1)||tune(gadget, level=1): Tune a gadget.|219",
		"definition|param gadget|tune(gadget, level=1)|param gadget: The gadget.|223",
		"definition|param level|tune(gadget, level=1)|param level: How hard.|224",
		"definition|Widget(name)||Widget(name): A widget.|226",
		"definition|hum()|Widget(name)|hum(): Make it hum.|230",
		"paragraph|||DEFAULT_LEVEL|234",
		"definition|-x, --exclude PATTERN||-x, --exclude PATTERN: Skip gadgets matching PATTERN.|236",
		"definition|WIDGET_HOME||WIDGET_HOME: Where widgets live.|240",
		"paragraph|||A numbered footnote.|250",
		"paragraph|||An auto-numbered footnote.|251",
		"paragraph|||The end.|258",
	})
	// Groups: a list is one group, a nested list another; a definition's
	// paragraphs share their list's group; a table is one group.
	blocks := map[string]document.Block{}
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			blocks[b.Text] = b
		}
	}
	same := func(a, b string, want bool) {
		t.Helper()
		if got := blocks[a].Group == blocks[b].Group; got != want {
			t.Errorf("%q and %q in one group: %v, want %v", a, b, got, want)
		}
	}
	same("First bullet continued.", "Second bullet with a nested list:", true)
	same("Nested one.", "Nested two.", true)
	same("First bullet continued.", "Nested one.", false)
	same("Plus bullet.", "First bullet continued.", false)
	same("First step.", "Second step.", true)
	same("Auto one.", "Second step.", false)
	same("-q, --quiet: Print nothing.", "-o FILE: Write to FILE.", true)
	same("param gadget: The gadget to tune.", "returns: The tuned gadget.", true)
	same("Name: fast; Meaning: Skip checks.", "Name: safe; Meaning: Check twice, then tune.", true)
	same("Name: fast; Meaning: Skip checks.", "a; b", false)
	same("Widgets hum when tuned.", "Ada Example", true)
	same("Tuning takes time.", "Be patient.", false)
	for _, gone := range []string{
		"comment", "orphan", "widget-guide", "logo", "custom title", "widget.png", "alt",
		"maxdepth", "usage", "caption", "Footnotes", "tips", "sync", "x = [1", "members", "widget.core",
		"Setup:", "anonymous", "----", "[1]", "|", "``", ":ref:", "`", "_ ",
	} {
		doctest.Absent(t, d, gone)
	}
	doctest.CandidatesLack(t, d, "$ pip")
	doctest.CandidatesLack(t, d, "digraph")
}

// rstBlocks parses in and returns its blocks as manBlocks does.
func rstBlocks(t *testing.T, in string) []string {
	t.Helper()
	d, err := Parse("t.rst", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	return doctest.ManBlocks(d)
}

// TestRSTConstructs checks small inputs, one construct each.
func TestRSTConstructs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // "kind|term|parents|text|line" per block
	}{
		{"paragraph lines joined", "One\ntwo.\n\nThree.", []string{"paragraph|||One two.|1", "paragraph|||Three.|4"}},
		{"literal marker forms", "A::\n\n  x\n\nB ::\n\n  y\n\n::\n\n  z\n", []string{"paragraph|||A:|1", "code|||x|3", "paragraph|||B|5", "code|||y|7", "code|||z|11"}},
		{"literal keeps indentation", "Code::\n\n    if x:\n        y\n\nAfter.", []string{"paragraph|||Code:|1", "code|||if x:\n    y|3", "paragraph|||After.|6"}},
		{"quoted literal block", "Mail::\n\n> quoted\n> lines\n\nAfter.", []string{"paragraph|||Mail:|1", "code|||> quoted\n> lines|3", "paragraph|||After.|6"}},
		{"literal without blank line", "Example::\n    code\n", []string{"paragraph|||Example:|1", "code|||code|2"}},
		{"no literal block follows", "Text::\n\nPlain.", []string{"paragraph|||Text:|1", "paragraph|||Plain.|3"}},
		{"bullets of other kinds", "• one\n• two\n\n* three", []string{"list-item|||one|1", "list-item|||two|2", "list-item|||three|4"}},
		{"list item paragraphs", "- one\n\n  more of one\n- two", []string{"list-item|||one|1", "list-item|||more of one|3", "list-item|||two|4"}},
		{"list item body by its text column", "-   one\n    goes on\n  not the item's\n", []string{"list-item|||one goes on|1", "quote|||not the item's|3"}},
		{"marker alone on its line", "-\n  text under it\n", []string{"list-item|||text under it|2"}},
		{"enumerations", "(1) a\n(2) b\n\ni) c\nii) d\n\nA. e\nB. f\n", []string{"list-item|||a|1", "list-item|||b|2", "list-item|||c|4", "list-item|||d|5", "list-item|||e|7", "list-item|||f|8"}},
		{"auto enumerator continues a list", "1. a\n#. b\n", []string{"list-item|||a|1", "list-item|||b|2"}},
		{"enumerator then text is a paragraph", "2024. was a year\nlike others.\n", []string{"paragraph|||2024. was a year like others.|1"}},
		{"text before a list without a blank line", "Options:\n- a\n- b\n", []string{"paragraph|||Options: - a - b|1"}},
		{"deep nested lists", "- a\n\n  - b\n\n    - c\n", []string{"list-item|||a|1", "list-item|||b|3", "list-item|||c|5"}},
		{"definition with classifiers", "term : str : optional\n    Meaning.\n", []string{"definition|term||term: Meaning.|1"}},
		{"definition with paragraphs", "term\n   First.\n\n   Second.\nnext\n   Third.\n", []string{"definition|term||term: First.|1", "definition|||Second.|4", "definition|next||next: Third.|5"}},
		{"definition term with colon", "Encryption:\n    PKCS#1 v1.5\n", []string{"definition|Encryption||Encryption: PKCS#1 v1.5|1"}},
		{"nested definitions carry parents", "a\n  Alpha.\n\n  b\n    Beta.\n\n    c\n      Gamma.\n", []string{"definition|a||a: Alpha.|1", "definition|b|a|b: Beta.|4", "definition|c|a › b|c: Gamma.|7"}},
		{"definition body only a list", "opts\n  - x\n  - y\n", []string{"list-item||opts|x|2", "list-item||opts|y|3"}},
		{"field list", ":Date: 2024-01-01\n:Parameters: one\n   and more.\n:empty:\n", []string{"definition|Date||Date: 2024-01-01|1", "definition|Parameters||Parameters: one and more.|2"}},
		{"field with escaped colon", ":a\\: b: c\n", []string{"definition|a: b||a: b: c|1"}},
		{"role at line start is not a field", ":ref:`x` is here.\n", []string{"paragraph|||x is here.|1"}},
		{"field list body first known", ":param x: Example::\n\n              code\n          more text\n", []string{"definition|param x||param x: Example:|1", "code|||code|3", "definition|||more text|4"}},
		{"option list forms", "-a            All.\n--long=<n v>  Long.\n/V            DOS.\n-b, --bee\n              Next line.\n", []string{"definition|-a||-a: All.|1", "definition|--long=<n v>||--long=<n v>: Long.|2", "definition|/V||/V: DOS.|3", "definition|-b, --bee||-b, --bee: Next line.|4"}},
		{"dash text is not an option", "-1 is returned on error.\n", []string{"paragraph|||-1 is returned on error.|1"}},
		{"block quote", "Text.\n\n   Quoted.\n\n      Deeper.\n", []string{"paragraph|||Text.|1", "quote|||Quoted.|3", "quote|||Deeper.|5"}},
		{"empty comment ends a quote", "- item\n\n..\n\n   Quoted.\n", []string{"list-item|||item|1", "quote|||Quoted.|5"}},
		{"line blocks", "| a\n| b\n\n| c\n", []string{"paragraph|||a b|1", "paragraph|||c|4"}},
		{"doctest", ">>> 1 + 1\n2\n\nText.", []string{"code|||>>> 1 + 1\n2|1", "paragraph|||Text.|4"}},
		{"comments and targets", ".. a comment\n   goes on\n\n   and on\n.. _t: http://x\n.. _`a b`: http://y\n__ http://z\n.. __: http://w\n\nText.", []string{"paragraph|||Text.|10"}},
		{"footnote and citation", ".. [#] First.\n.. [CIT2002] Second\n   goes on.\n", []string{"paragraph|||First.|1", "paragraph|||Second goes on.|2"}},
		{"transition", "Alpha.\n\n--------\n\nBeta.", []string{"paragraph|||Alpha.|1", "paragraph|||Beta.|5"}},
		{"a letter and a period alone is a list item", "A.\n\nB. b\n", []string{"list-item|||b|3"}},
		{"short punctuation line is text", "...\n", []string{"paragraph|||...|1"}},
		{"simple table with spans and continuation", "=====  =====  =====\nA      B      C\n=====  =====  =====\n1      two    3\n       lines\n-----  -----  -----\n4      5      6 and more\n=====  =====  =====\n", []string{"table-row|||A: 1; B: two lines; C: 3|4", "table-row|||A: 4; B: 5; C: 6 and more|7"}},
		{"simple table without bottom", "=====  =====\na      b\n", []string{"paragraph|||a b|2"}},
		{"simple table with empty cells", "===  ===\nA    B\n===  ===\nx\n     y\n===  ===\n", []string{"table-row|||A: x; B: y|4"}},
		{"grid table spans", "+---+---+---+\n| A | B | C |\n+===+===+===+\n| 1 spans   |\n| two       |\n+---+---+---+\n| 4 | 5 | 6 |\n+---+   +---+\n| 7 |   | 9 |\n+---+---+---+\n", []string{"table-row|||A: 1 spans two|4", "table-row|||A: 4; B: 5; C: 6|7", "table-row|||A: 7; C: 9|9"}},
		{"grid table cell body", "+-------+\n| - a   |\n| - b   |\n+-------+\n| ``x`` |\n+-------+\n", []string{"table-row|||a b|2", "table-row|||x|5"}},
		{"wide characters in tables", "=====  =====\n名前   意味\n=====  =====\n速い   はい\n=====  =====\n", []string{"table-row|||名前: 速い; 意味: はい|4"}},
		{"csv table options", ".. csv-table::\n   :delim: ;\n   :header-rows: 1\n\n   a; b\n   \"x; y\"; z\n", []string{"table-row|||a: x; y; b: z|6"}},
		{"csv table from a file", ".. csv-table:: Data\n   :file: data.csv\n", []string{"paragraph|||Data|1"}},
		{"list table without header", ".. list-table::\n\n   * - a\n     - b\n   * - c\n     -\n", []string{"table-row|||a; b|3", "table-row|||c|5"}},
		{"table directive", ".. table:: Sizes\n\n   ===  ===\n   a    b\n   ===  ===\n   1    2\n   ===  ===\n", []string{"paragraph|||Sizes|1", "table-row|||a: 1; b: 2|6"}},
		{"admonition forms", ".. note::\n   :class: x\n\n   Body.\n.. Warning:: First\n   line.\n.. seealso::\n\n   Module :mod:`os.path`.\n", []string{"paragraph|||Body.|4", "paragraph|||First line.|5", "paragraph|||Module os.path.|9"}},
		{"version directives", ".. versionadded:: 3.1\n.. versionchanged:: 3.2\n\n   - a list\n.. deprecated-removed:: 3.4 3.6\n", []string{"paragraph|||Added in version 3.1.|1", "paragraph|||Changed in version 3.2.|2", "list-item|||a list|4", "paragraph|||Deprecated since version 3.4, removed in version 3.6.|5"}},
		{"version in a definition", ".. function:: f()\n\n   .. versionadded:: 1.0\n      Does f.\n", []string{"definition|f()||f(): Added in version 1.0: Does f.|1"}},
		{"code directives", ".. code-block::\n\n   a = 1\n.. code:: sh\n   :number-lines:\n\n   ls\n.. sourcecode:: c\n\n   x;\n.. highlight:: c\n.. literalinclude:: x.c\n.. parsed-literal::\n\n   *raw* text\n.. math:: x^2\n", []string{"code|||a = 1|3", "code|||ls|7", "code|||x;|10", "code|||*raw* text|15", "code|||x^2|16"}},
		{"dropped directives", ".. image:: a.png\n   :target: x\n.. toctree::\n\n   a\n.. contents::\n.. include:: x.rst\n.. raw:: html\n\n   <b>x</b>\n.. index:: frob\n.. meta::\n   :keywords: a\n.. tabularcolumns:: |l|l|\n.. rubric:: Label\n.. todo:: Later.\n.. autofunction:: f\n.. autoclass:: C\n   :members:\n\nKept.", []string{"paragraph|||Kept.|21"}},
		{"autodoc text is kept", ".. autoclass:: Cache(maxsize)\n\n   Written here.\n", []string{"definition|Cache(maxsize)||Cache(maxsize): Written here.|1"}},
		{"only and containers read", ".. only:: html\n\n   Shown.\n\n.. rst-class:: wide\n\n   Also shown.\n", []string{"paragraph|||Shown.|3", "paragraph|||Also shown.|7"}},
		{"sections in only", ".. only:: html\n\n   Part\n   ====\n\n   Text.\n", []string{"paragraph|||Text.|6"}},
		{"sidebar and epigraph", ".. sidebar:: Aside\n\n   Side text.\n.. epigraph::\n\n   Wise words.\n", []string{"paragraph|||Aside|1", "paragraph|||Side text.|3", "quote|||Wise words.|6"}},
		{"unknown directives", ".. tab:: Linux\n\n   Use apt.\n.. diagram::\n\n   graph TD; A-->B;\n.. card::\n   Text at once.\n", []string{"paragraph|||Use apt.|3", "paragraph|||Text at once.|8"}},
		{"unknown directive of nested code", ".. tab:: Unix\n\n   .. code-block:: console\n\n      $ make\n", []string{"code|||$ make|5"}},
		{"glossary", ".. glossary::\n   :sorted:\n\n   API\n      Interface.\n\n   term one : key\n   term two\n      Meaning.\n\n      More.\n", []string{"definition|API||API: Interface.|4", "definition|term one, term two||term one, term two: Meaning.|7", "definition|||More.|11"}},
		{"domain objects", ".. c:function:: int f(int x)\n\n   Does f.\n.. cpp:class:: std::vector\n.. js:function:: g()\n   :async:\n\n   Does g.\n.. py:module:: m\n.. c:namespace:: n\n", []string{"definition|int f(int x)||int f(int x): Does f.|1", "paragraph|||std::vector|4", "definition|g()||g(): Does g.|5"}},
		{"several signatures", ".. function:: f(a)\n              f(a, b)\n\n   Two ways.\n", []string{"definition|f(a), f(a, b)||f(a), f(a, b): Two ways.|1"}},
		{"signature escapes", ".. function:: f(\\*args, \\*\\*kw)\n\n   Star.\n", []string{"definition|f(*args, **kw)||f(*args, **kw): Star.|1"}},
		{"nested objects", ".. class:: C\n\n   .. attribute:: a\n\n      An a.\n\n      :type: int\n", []string{"definition|a|C|a: An a.|3", "definition|type|C › a|type: int|7"}},
		{"object fields first", ".. method:: m(x)\n\n   :param x: An x.\n\n   Does m.\n", []string{"definition|param x|m(x)|param x: An x.|3", "definition|m(x)||m(x): Does m.|1"}},
		{"substitutions", "|a| and |B| and |unknown| and |a|_.\n\n.. |a| replace:: Alpha *one*\n.. |b| replace:: Beta\n   continued\n.. |img| image:: x.png\n", []string{"paragraph|||Alpha one and Beta continued and unknown and Alpha one.|1"}},
		{"substitution in a substitution", ".. |a| replace:: see |b|\n.. |b| replace:: Bee\n\n|a|\n", []string{"paragraph|||see b|4"}},
		{"titles", "Title\n=====\n\nSub\n---\n\n=====\n Over\n=====\n\nText.", []string{"paragraph|||Text.|11"}},
		{"title inside a paragraph's lines", "Text\nTitle\n=====\nBody.\n", []string{"paragraph|||Text|1", "paragraph|||Body.|4"}},
		{"short underline is text", "A longer title\n--\n", []string{"paragraph|||A longer title --|1"}},
		{"title in a list is text", "- Item\n  ====\n", []string{"list-item|||Item|1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doctest.CheckLines(t, "blocks", rstBlocks(t, tc.in), tc.want)
		})
	}
}

// TestRSTTitles checks section levels and the document title.
func TestRSTTitles(t *testing.T) {
	for _, tc := range []struct {
		name, in, title string
		want            []string
	}{
		{"styles in order of appearance", "Top\n***\n\nA\n=\n\nB\n-\n\nC\n=\n\n====\nD\n====\n", "Top",
			[]string{"Top#top@1", "Top › A#a@4", "Top › A › B#b@7", "Top › C#c@10", "Top › C › D#d@14"}},
		{"overline makes another style", "=====\nOne\n=====\n\nTwo\n===\n", "One", []string{"One#one@2", "One › Two#two@5"}},
		{"several top-level titles", "A\n=\n\nB\n=\n", "", []string{"A#a@1", "B#b@4"}},
		{"inset title and markup", "=========\n  *Big*  \n=========\n\nThe ``x`` part\n--------------\n", "Big", []string{"Big#big@2", "Big › The x part#the-x-part@5"}},
		{"repeated titles", "A\n=\n\nX\n-\n\nB\n=\n\nX\n-\n", "", []string{"A#a@1", "A › X#x@4", "B#b@7", "B › X#x-1@10"}},
		{"deep levels", "1\n=\n2\n-\n3\n~\n4\n^\n5\n\"\n6\n'\n7\n`\n", "1",
			[]string{"1#1@1", "1 › 2#2@3", "1 › 2 › 3#3@5", "1 › 2 › 3 › 4#4@7", "1 › 2 › 3 › 4 › 5#5@9", "1 › 2 › 3 › 4 › 5 › 6#6@11", "1 › 2 › 3 › 4 › 5 › 7#7@13"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("t.rst", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
			if d.Title != tc.title {
				t.Errorf("title %q, want %q", d.Title, tc.title)
			}
			doctest.CheckLines(t, "sections", doctest.SectionPaths(d), tc.want)
		})
	}
}

// TestRSTInline checks the removal of inline markup from a paragraph.
func TestRSTInline(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"*em* **strong** ``lit`` `interp`", "em strong lit interp"},
		{"a*b, 2 * 3, snake_case_name, __init__, x_", "a*b, 2 * 3, snake_case_name, __init__, x"},
		{"*unclosed and **unclosed", "*unclosed and **unclosed"},
		{"(*) and '*' and \"*\"", "(*) and '*' and \"*\""},
		{"**kwargs and *args", "**kwargs and *args"},
		{"*a*b* and *a *b*", "a*b and a *b"},
		{"``C:\\path\\`` and ``*x*``", "C:\\path\\ and *x*"},
		{"\\*not em\\* and \\\\ and a\\ b", "*not em* and \\ and ab"},
		{"H\\ :sub:`2`\\ O", "H2O"},
		{":ref:`Title <label>` and :ref:`label` and :doc:`/a/b`", "Title and label and /a/b"},
		{":func:`~mod.f` :meth:`!g` :class:`.C` :py:class:`py2:types.X` :mod:`os.path`", "f g C types.X os.path"},
		{":abbr:`LIFO (last-in, first-out)` :kbd:`C-x` :math:`\\alpha` :file:`/etc/{name}`", "LIFO (last-in, first-out) C-x \\alpha /etc/name"},
		{":pep:`8` :rfc:`2822#section-3` :guilabel:`&Cancel` :menuselection:`File --> Open`", "PEP 8 RFC 2822 Cancel File ‣ Open"},
		{":envvar:`HOME` :option:`-x` :term:`gadget` :raw-html:`<br>` :samp:`ls {dir}`", "HOME -x gadget ls dir"},
		{"`text`:emphasis: and `x <y>`:ref:", "text and x"},
		{"`Link <https://x.example>`_, `<https://y.example>`_, `Name`_, name_, `anon`__", "Link, https://y.example, Name, name, anon"},
		{"a-b_ and (see c_) and e_.", "a-b and (see c) and e."},
		{"x=foo_ stays, and foo_bar too", "x=foo_ stays, and foo_bar too"},
		{"Text [1]_, more [#]_ and [#f]_ and [*]_ and [Cit]_.", "Text, more and and and."},
		{"[1] alone and [x]", "[1] alone and [x]"},
		{"_`Target` is kept", "Target is kept"},
		{"Pipes | here and a|b| and ||", "Pipes | here and a|b| and ||"},
		{"http://x.example/a_b and user@example.org", "http://x.example/a_b and user@example.org"},
		{"``unclosed literal and `unclosed interp", "``unclosed literal and `unclosed interp"},
		{"“*quoted*” and ‘**q**’", "“quoted” and ‘q’"},
		{"**Use ``x`` and :func:`y`** or *see `z`_*", "Use x and y or see z"},
	} {
		if got := firstBlockText(t, document.RST, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRSTInput checks line ends, byte order marks, tabs and bytes that
// are not UTF-8.
func TestRSTInput(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"crlf and bom", "\xef\xbb\xbfTitle\r\n=====\r\n\r\n- one\r\n- two::\r\n\r\n    code\r\n", []string{"list-item|||one|4", "list-item|||two:|5", "code|||code|7"}},
		{"tabs expand to 8", "term\n\tDefinition.\n\n::\n\n\tif x:\n\t\ty\n", []string{"definition|term||term: Definition.|1", "code|||if x:\n        y|6"}},
		{"invalid UTF-8 replaced", "caf\xe9 and \xff\n", []string{"paragraph|||caf\uFFFD and \uFFFD|1"}},
		{"form feed and vertical tab", "a\fb\vc\n", []string{"paragraph|||a b c|1"}},
		{"empty", "", nil},
		{"blank lines only", "\n\n   \n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doctest.CheckLines(t, "blocks", rstBlocks(t, tc.in), tc.want)
		})
	}
}

// TestRSTHostile checks inputs made to hurt: deep nesting, long lines,
// markup left open. They must read without a panic (and in linear time:
// TestRSTLinear).
func TestRSTHostile(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"thousands of list levels", strings.Repeat("- ", 5000) + "deep\n"},
		{"deep block quotes", func() string {
			var sb strings.Builder
			for i := range 3000 {
				sb.WriteString(strings.Repeat(" ", i) + "x\n\n")
			}
			return sb.String()
		}()},
		{"deep definitions", func() string {
			var sb strings.Builder
			for i := range 3000 {
				sb.WriteString(strings.Repeat(" ", i) + "term\n")
			}
			return sb.String() + strings.Repeat(" ", 3000) + "body\n"
		}()},
		{"deep directives", strings.Repeat(".. note::\n\n", 1) + func() string {
			var sb strings.Builder
			for i := range 2000 {
				sb.WriteString(strings.Repeat(" ", 3*i+3) + ".. note::\n\n")
			}
			return sb.String()
		}()},
		{"long adornment", strings.Repeat("=", 1<<20) + "\nTitle\n" + strings.Repeat("=", 1<<20) + "\n"},
		{"long adornment lines", strings.Repeat(strings.Repeat("-", 5000)+"\n\n", 2000)},
		{"open markup", strings.Repeat("*a **b ``c `d |e [f _`g :r:`h ", 20000) + "\n"},
		{"many references", strings.Repeat("a_-", 100000) + "\n"},
		{"simple table borders without bottom", strings.Repeat("===  ===\nx    y\n", 20000)},
		{"wide grid table", "+" + strings.Repeat("-+", 50000) + "\n" + strings.Repeat("|"+strings.Repeat(" |", 50000)+"\n", 3) + strings.Repeat("+\n", 20000)},
		{"grid rows", "+---+\n" + strings.Repeat("| x |\n+---+\n", 20000)},
		{"narrow rows under a wide table", strings.Repeat("=== ", 100) + "\n" + strings.Repeat("x\n", 200000) + strings.Repeat("=== ", 100) + "\n"},
		{"short borders under a wide grid", "+" + strings.Repeat("-+", 100) + "\n" + strings.Repeat("|x\n+-+\n", 100000)},
		{"substitution bomb", ".. |a| replace:: " + strings.Repeat("x", 4000) + "\n\n" + strings.Repeat("|a| ", 200000) + "\n"},
		{"enumerators", strings.Repeat("1. a\n", 50000)},
		{"fields and options", strings.Repeat(":a: b\n-a  b\n", 30000)},
		{"unclosed everything", ".. code-block::\n\n  x\n+---\n|\n=== ===\n.. |x| replace::\n.. [\n:a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("t.rst", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
		})
	}
}

// TestRSTAnchor: blocks are found by file, line and section slug.
func TestRSTAnchor(t *testing.T) {
	d, err := Parse("guide.rst", []byte("Guide\n=====\n\nUsage\n-----\n\nRun it.\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := d.Sections[1]
	if a := d.Anchor(s, s.Blocks[0]); a != "guide.rst:7#usage" {
		t.Errorf("anchor %q", a)
	}
}
