package info

import (
	"fmt"
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// infoBlocks lists a document's blocks as "kind|term|parents|text|line|gN",
// the term cut from the text by Block.Term and the groups numbered from 1
// in the order they first appear.
func infoBlocks(d *document.Document) []string {
	var out []string
	groups := map[int]int{}
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if groups[b.Group] == 0 {
				groups[b.Group] = len(groups) + 1
			}
			out = append(out, fmt.Sprintf("%s|%s|%s|%s|%d|g%d", b.Kind, b.Text[:b.Term], strings.Join(b.Parents, document.PathSep), b.Text, b.Line, groups[b.Group]))
		}
	}
	return out
}

// oneNode returns an Info file of one node, "Name" (under Top), whose
// body is body: its first line is the file's line 4.
func oneNode(body string) string {
	return "\x1f\nFile: t.info,  Node: Name,  Up: Top\n\n" + body
}

// TestInfoManual reads testdata/frobutils.info, an invented manual with
// the constructs makeinfo writes.
func TestInfoManual(t *testing.T) {
	d := parseFile(t, "frobutils.info", document.Info)
	if d.Title != "GNU Frobutils" || d.Format != document.Info {
		t.Errorf("title %q, format %q", d.Title, d.Format)
	}
	doctest.CheckLines(t, "sections", doctest.SectionPaths(d), []string{
		"GNU Frobutils#gnu-frobutils@21",
		"GNU Frobutils › 1 Overview#1-overview@45",
		"GNU Frobutils › 2 Invoking ‘frob’#2-invoking-frob@83",
		"GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options#21-options@102",
		"GNU Frobutils › 2 Invoking ‘frob’ › 2.2 Library#22-library@153",
		"GNU Frobutils › 2 Invoking ‘frob’ › 2.2 Library › Options structure#options-structure@166",
		"GNU Frobutils › 2 Invoking ‘frob’ › 2.2 Library › Frob internals#frob-internals@175",
	})
	doctest.CheckBlocks(t, d, []string{
		"paragraph|GNU Frobutils|This manual is for GNU Frobutils (version 2.4), a set of invented tools that frobnicate files.",
		"paragraph|GNU Frobutils › 1 Overview|‘frob’ rewrites each file named on its command line in place, keeping a backup unless told otherwise. Frobbing is fast and safe: the backup has the suffix ‘.bak’, and frobbing twice restores the original. For the options that change this and more, see Choosing what to frob. The library is described elsewhere (see Library).",
		"paragraph|GNU Frobutils › 1 Overview|Frobnication works on any file, in three stages:",
		"list-item|GNU Frobutils › 1 Overview|Reading: the file is read whole into memory, so very large files need as much memory as they are long.",
		"list-item|GNU Frobutils › 1 Overview|Frobbing: every byte is frobnicated.",
		"list-item|GNU Frobutils › 1 Overview|Writing: the result replaces the file.",
		"paragraph|GNU Frobutils › 1 Overview|To frob a directory tree, run these steps:",
		"list-item|GNU Frobutils › 1 Overview|List the files with ‘find’.",
		"list-item|GNU Frobutils › 1 Overview|Pass them to ‘frob’, a hundred at a time.",
		"list-item|GNU Frobutils › 1 Overview|Steps that fail are retried once.",
		"paragraph|GNU Frobutils › 1 Overview|Frobbing never follows symbolic links.",
		"quote|GNU Frobutils › 1 Overview|Note: a file that is frobbed twice comes back as it was, byte for byte, whatever the level; see Invoking frob for the levels.",
		"paragraph|GNU Frobutils › 1 Overview|The backup is written next to the file, or into ‘FROB_HOME’ when that is set.",
		"paragraph|GNU Frobutils › 2 Invoking ‘frob’|The format for running ‘frob’ is:",
		"code|GNU Frobutils › 2 Invoking ‘frob’|frob [OPTION]... FILE...",
		"paragraph|GNU Frobutils › 2 Invoking ‘frob’|‘frob’ exits with status 0 when every file was frobbed, and 1 otherwise.",
		"paragraph|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|‘frob’ takes these options:",
		"definition|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|-n, --dry-run: Show what would change without writing anything.",
		"definition|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|--level=N: Frobnicate N times. N defaults to 1.",
		"definition|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|Levels above 9 are slow.",
		"definition|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|--mode=MODE: Choose how to frob. MODE is one of:",
		"definition|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|fast: Skip the backup.",
		"definition|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|safe: Keep two backups.",
		"definition|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|-x GLOB, --exclude=GLOB: Skip files matching GLOB. For example:",
		"code|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|$ frob --exclude='*.bak' notes.txt",
		"paragraph|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|The levels, side by side:",
		"table-row|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|Level: 1; Effect: Frob once and keep a backup.",
		"table-row|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|Level: 2; Effect: Frob twice: the file comes back as it was.",
		"paragraph|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|Variables it reads:",
		"paragraph|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|‘FROB_HOME’; Where backups go.",
		"paragraph|GNU Frobutils › 2 Invoking ‘frob’ › 2.1 Options|‘FROB_QUIET’; Silences warnings.",
		"paragraph|GNU Frobutils › 2 Invoking ‘frob’ › 2.2 Library|Programs call ‘frob’'s library through ‘<frob.h>’.",
		"definition|GNU Frobutils › 2 Invoking ‘frob’ › 2.2 Library|int frob_file (const char *NAME, int LEVEL, unsigned FLAGS): Frobnicate the file NAME LEVEL times. It returns 0 on success, and -1 with ‘errno’ set on failure.",
		"definition|GNU Frobutils › 2 Invoking ‘frob’ › 2.2 Library|FROB_MAX_LEVEL: The highest level ‘frob_file’ accepts.",
		"code|GNU Frobutils › 2 Invoking ‘frob’ › 2.2 Library › Options structure|struct frob_opts {\n  int level;\n};",
		"paragraph|GNU Frobutils › 2 Invoking ‘frob’ › 2.2 Library › Frob internals|The frobnicator keeps no state between calls.",
	})
	// Terms, parents, lines (a definition is where its first term is)
	// and groups (a list's items and a table's definitions share one).
	blocks := infoBlocks(d)
	doctest.CheckLines(t, "terms, parents, lines and groups", blocks[3:], []string{
		"list-item|||Reading: the file is read whole into memory, so very large files need as much memory as they are long.|56|g4",
		"list-item|||Frobbing: every byte is frobnicated.|59|g4",
		"list-item|||Writing: the result replaces the file.|61|g4",
		"paragraph|||To frob a directory tree, run these steps:|63|g5",
		"list-item|||List the files with ‘find’.|64|g6",
		"list-item|||Pass them to ‘frob’, a hundred at a time.|65|g6",
		"list-item|||Steps that fail are retried once.|67|g6",
		"paragraph|||Frobbing never follows symbolic links.|69|g7",
		"quote|||Note: a file that is frobbed twice comes back as it was, byte for byte, whatever the level; see Invoking frob for the levels.|71|g8",
		"paragraph|||The backup is written next to the file, or into ‘FROB_HOME’ when that is set.|76|g9",
		"paragraph|||The format for running ‘frob’ is:|86|g10",
		"code|||frob [OPTION]... FILE...|88|g11",
		"paragraph|||‘frob’ exits with status 0 when every file was frobbed, and 1 otherwise.|95|g12",
		"paragraph|||‘frob’ takes these options:|105|g13",
		"definition|-n, --dry-run||-n, --dry-run: Show what would change without writing anything.|107|g14",
		"definition|--level=N||--level=N: Frobnicate N times. N defaults to 1.|111|g14",
		"definition|||Levels above 9 are slow.|114|g14",
		"definition|--mode=MODE||--mode=MODE: Choose how to frob. MODE is one of:|116|g14",
		"definition|fast|--mode=MODE|fast: Skip the backup.|119|g15",
		"definition|safe|--mode=MODE|safe: Keep two backups.|122|g15",
		"definition|-x GLOB, --exclude=GLOB||-x GLOB, --exclude=GLOB: Skip files matching GLOB. For example:|125|g14",
		"code|||$ frob --exclude='*.bak' notes.txt|129|g16",
		"paragraph|||The levels, side by side:|131|g17",
		"table-row|||Level: 1; Effect: Frob once and keep a backup.|136|g18",
		"table-row|||Level: 2; Effect: Frob twice: the file comes back as it was.|138|g18",
		"paragraph|||Variables it reads:|142|g19",
		"paragraph|||‘FROB_HOME’; Where backups go.|144|g20",
		"paragraph|||‘FROB_QUIET’; Silences warnings.|146|g20",
		"paragraph|||Programs call ‘frob’'s library through ‘<frob.h>’.|156|g21",
		"definition|int frob_file (const char *NAME, int LEVEL, unsigned FLAGS)||int frob_file (const char *NAME, int LEVEL, unsigned FLAGS): Frobnicate the file NAME LEVEL times. It returns 0 on success, and -1 with ‘errno’ set on failure.|158|g22",
		"definition|FROB_MAX_LEVEL||FROB_MAX_LEVEL: The highest level ‘frob_file’ accepts.|163|g22",
		"code|||struct frob_opts {\n  int level;\n};|169|g23",
		"paragraph|||The frobnicator keeps no state between calls.|177|g24",
	})
	// Navigation, the preamble, the index, the tables and markup are gone.
	for _, gone := range []string{"Menu", "::", "Node:", "Detailed Node Listing", "produced by makeinfo", "INFO-DIR", "Invented tools", "Permission", "Concept Index", "(line", "Tag Table", "coding", "(1)", "Footnotes", "*note", "_fast_", "*safe*"} {
		doctest.Absent(t, d, gone)
	}
	doctest.CandidatesLack(t, d, "$ frob")
	if a := d.Anchor(d.Sections[3], d.Sections[3].Blocks[1]); a != "frobutils.info:107#21-options" {
		t.Errorf("anchor %q", a)
	}
}

// TestInfoConstructs checks small inputs, one construct each; a node's
// body starts on line 4.
func TestInfoConstructs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // infoBlocks
	}{
		{"paragraphs joined, indented ones too", oneNode("One line\nand the next.\n\n   Indented first\nline.\n"),
			[]string{"paragraph|||One line and the next.|4|g1", "paragraph|||Indented first line.|7|g2"}},
		{"crlf", strings.ReplaceAll(oneNode("Windows\nline ends.\n"), "\n", "\r\n"), []string{"paragraph|||Windows line ends.|4|g1"}},
		{"byte order mark", "\xef\xbb\xbf" + oneNode("Text.\n"), []string{"paragraph|||Text.|4|g1"}},
		{"latin-1 by its coding", oneNode("Caf\xe9 cr\xe8me.\n") + "\x1f\nLocal Variables:\ncoding: iso-latin-1\nEnd:\n", []string{"paragraph|||Café crème.|4|g1"}},
		{"invalid utf-8 read as latin-1", oneNode("na\xefve \xff\n"), []string{"paragraph|||naïve ÿ|4|g1"}},
		{"cross references", oneNode("*Note Alpha::.  Then *note Beta: (other)Gamma, and (*note Delta::)\nor (*note Label: Node.) and *note (coreutils)Top:: and\n*note (grep)Usage:: and see *note Epsilon::.\n"),
			[]string{"paragraph|||See Alpha. Then see Beta, and (see Delta) or (see Label) and see coreutils and see Usage and see Epsilon.|4|g1"}},
		{"cross reference over lines", oneNode("Options that change how a file is frobbed are all described in *note The\nlong node name::, and for the library itself read the whole of *note\nLibrary functions: Library.\n"),
			[]string{"paragraph|||Options that change how a file is frobbed are all described in see The long node name, and for the library itself read the whole of see Library functions.|4|g1"}},
		{"quoted node names", "\x1f\nFile: t.info,  Node: \x7fA, b\x7f,  Up: Top\n\nSee *note \x7fC: d\x7f::.\n", []string{"paragraph|||See C: d.|4|g1"}},
		{"emphasis", oneNode("*Warning:* _never_ frob _POSIX_C_SOURCE, __init__, *.c, a*b*c, 2*3 or ‘-A \"*x*\"’.\n"),
			[]string{"paragraph|||Warning: never frob _POSIX_C_SOURCE, __init__, *.c, a*b*c, 2*3 or ‘-A \"*x*\"’.|4|g1"}},
		{"footnote markers", oneNode("Frob it.(1)  Read ls(2) too.\n\n   ---------- Footnotes ----------\n\n   (1) Once is\nenough.\n"),
			[]string{"paragraph|||Frob it. Read ls(2) too.|4|g1", "paragraph|||Once is enough.|8|g2"}},
		{"menu entries, comments and the text after them", oneNode("* Menu:\n\n* A::     First.\n* B: Node b.     Second, described\n                  at length.\n\nPart two\n\n* C::\n\n   Text after the menu\nover two lines.\n"),
			[]string{"paragraph|||Text after the menu over two lines.|14|g1"}},
		{"table right after its introduction", oneNode("Styles are:\n‘plain’\n     No quotes.\n‘c’\n     C quotes.\n"),
			[]string{"paragraph|||Styles are:|4|g1", "definition|plain||plain: No quotes.|5|g2", "definition|c||c: C quotes.|7|g2"}},
		{"terms set off by an empty line", oneNode("‘-b FILE’\n‘--break-file=FILE’\n\n     Read the characters that break words from FILE, one to a line,\n     and no others.\n\nRanges\n\n     The notation ‘M-N’ expands to the characters from M through N, in\n     ascending order.\n"),
			[]string{"definition|-b FILE, --break-file=FILE||-b FILE, --break-file=FILE: Read the characters that break words from FILE, one to a line, and no others.|4|g1",
				"definition|Ranges||Ranges: The notation ‘M-N’ expands to the characters from M through N, in ascending order.|10|g1"}},
		{"sentence then example is no term", oneNode("For example:\n     $ frob -n\n\nThe command\n\n     frob FILE\n"),
			[]string{"paragraph|||For example:|4|g1", "code|||$ frob -n|5|g2", "paragraph|||The command|7|g3", "code|||frob FILE|9|g4"}},
		{"filled paragraph then example", oneNode("The following example, which is long enough to be filled by makeinfo,\nruns it:\n     $ frob -n\n"),
			[]string{"paragraph|||The following example, which is long enough to be filled by makeinfo, runs it:|4|g1", "code|||$ frob -n|6|g2"}},
		{"term with code only", oneNode("‘--trace’\n          $ frob --trace x\n"),
			[]string{"paragraph|||--trace|4|g1", "code|||$ frob --trace x|5|g2"}},
		{"terms with quotes inside", oneNode("'C-_' or 'C-x C-u'\n     Undo.\n`old'\n     Old quotes.\n‘don’t’\n     Apostrophe.\n"),
			[]string{"definition|C-_ or C-x C-u||C-_ or C-x C-u: Undo.|4|g1", "definition|old||old: Old quotes.|6|g1", "definition|don’t||don’t: Apostrophe.|8|g1"}},
		{"nested lists", oneNode("   • Outer one.\n        1. Inner one.\n        2. Inner two.\n   • Outer two.\n"),
			[]string{"list-item|||Outer one.|4|g1", "list-item|||Inner one.|5|g2", "list-item|||Inner two.|6|g2", "list-item|||Outer two.|7|g1"}},
		{"list in a description", oneNode("‘--fix’\n     Fixes:\n        • dates;\n        • names.\n"),
			[]string{"definition|--fix||--fix: Fixes:|4|g1", "list-item||--fix|dates;|6|g2", "list-item||--fix|names.|7|g2"}},
		{"list in a description alone", oneNode("‘--fix’\n        • dates;\n"),
			[]string{"list-item||--fix|dates;|5|g1"}},
		{"deffn with more lines", oneNode(" -- Function: int frob (int A)\n -- Function: int frobl (long A,\n          long B)\n     Frob A.\n\n     A is not changed.\n\n -- Variable: frob_level\n"),
			[]string{"definition|int frob (int A), int frobl (long A, long B)||int frob (int A), int frobl (long A, long B): Frob A.|4|g1", "definition|||A is not changed.|9|g1", "paragraph|||frob_level|11|g1"}},
		{"verbatim at the margin", oneNode("Usage:\n\nstruct x {\n  int a;\n};\n\n$ frob\n"),
			[]string{"paragraph|||Usage:|4|g1", "code|||struct x {\n  int a;\n};\n\n$ frob|6|g2"}},
		{"quotation and display", oneNode("     A quotation that makeinfo fills to the fill column, as it does with\n     every paragraph of prose it meets.\n\n     A display\n     of short lines\n"),
			[]string{"quote|||A quotation that makeinfo fills to the fill column, as it does with every paragraph of prose it meets.|4|g1", "code|||A display\nof short lines|7|g2"}},
		{"example keeps indentation and empty lines", oneNode("     if x {\n         y\n     }\n\n     z\n"),
			[]string{"code|||if x {\n    y\n}\n\nz|4|g1"}},
		{"multitable with a header", oneNode("Name      Meaning\n          \n------------------------------\nx         The first\n          one.\n          \ny         The second.\n"),
			[]string{"table-row|||Name: x; Meaning: The first one.|7|g1", "table-row|||Name: y; Meaning: The second.|10|g1"}},
		{"multitable rows by line", oneNode("Key   Value\n-------------------------------\na     1\nb     2\n"),
			[]string{"table-row|||Key: a; Value: 1|6|g1", "table-row|||Key: b; Value: 2|7|g1"}},
		{"heading inside a node", oneNode("Text.\n\nSubheading\n----------\n\nMore.\n"),
			[]string{"paragraph|||Text.|4|g1", "paragraph|||More.|9|g2"}},
		{"image marker", oneNode("\x00\x08[image src=\"a.png\" alt=\"A\"\x00\x08]\n\nFigure 1.\n"), []string{"paragraph|||Figure 1.|6|g1"}},
		{"index without a marker", oneNode("* Menu:\n\n* frob:                    Overview.     (line 6)\n"), nil},
		{"preamble only", "This is t.info, produced by makeinfo.\n\nINFO-DIR-SECTION X\nSTART-INFO-DIR-ENTRY\n* T: (t).\nEND-INFO-DIR-ENTRY\n", nil},
		{"indirect main file", "This is t.info.\n\n\x1f\nIndirect:\nt.info-1: 100\n\x1f\nTag Table:\n(Indirect)\nNode: Top\x7f100\n\x1f\nEnd Tag Table\n", nil},
		{"separate footnotes", "\x1f\nFile: t.info,  Node: A,  Up: Top\n\nFrob it(1) (*note A-Footnote-1::).\n\x1f\nFile: t.info,  Node: A-Footnotes,  Up: A\n\n   (1) Once.\n",
			[]string{"paragraph|||Frob it.|4|g1", "paragraph|||Once.|8|g2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("t.info", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
			doctest.CheckLines(t, "blocks", infoBlocks(d), tc.want)
		})
	}
}

// TestInfoHeadings checks headings: the Top node's title is the
// document's, an underline gives the level, a node without a title is
// headed by its name one level below its Up node, index nodes are
// dropped.
func TestInfoHeadings(t *testing.T) {
	in := "\x1f\nFile: t.info,  Node: Top,  Up: (dir)\n\n" +
		"\x1f\nFile: t.info,  Node: Ch,  Up: Top\n\n1 Chapter\n*********\n\n1.1 Sub\n=======\n\n1.1.1 Subsub\n------------\n\n1.1.1.1 Deep\n............\n\n" +
		"\x1f\nFile: t.info,  Node: Loose,  Up: Ch\n\nText.\n" +
		"\x1f\nFile: t.info,  Node: Index,  Up: Top\n\nIndex\n*****\n\n\x00\x08[index\x00\x08]\n* Menu:\n\n* x: Ch. (line 1)\n"
	d, err := Parse("t.info", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckDocument(t, d)
	if d.Title != "t" {
		t.Errorf("title %q", d.Title)
	}
	doctest.CheckLines(t, "sections", doctest.SectionPaths(d), []string{
		"t#t@2",
		"t › 1 Chapter#1-chapter@7",
		"t › 1 Chapter › 1.1 Sub#11-sub@10",
		"t › 1 Chapter › 1.1 Sub › 1.1.1 Subsub#111-subsub@13",
		"t › 1 Chapter › 1.1 Sub › 1.1.1 Subsub › 1.1.1.1 Deep#1111-deep@16",
		"t › 1 Chapter › Loose#loose@20",
	})
}

// TestInfoHostile checks inputs made to hurt: deep nesting, long lines,
// unclosed markers, many separators, binary. They must read without a
// panic (and in linear time: TestInfoLinear).
func TestInfoHostile(t *testing.T) {
	var deep strings.Builder
	for i := 0; i < 3000; i++ {
		deep.WriteString(strings.Repeat(" ", 2*i) + "‘t’\n" + strings.Repeat(" ", 2*i+5) + "• x\n")
	}
	for _, tc := range []struct{ name, in string }{
		{"deep nesting", oneNode(deep.String())},
		{"deep indentation", oneNode(strings.Repeat(" ", 1<<20) + "x\n")},
		{"long line", oneNode(strings.Repeat("word ", 1<<18) + "\n")},
		{"many terms", oneNode(strings.Repeat("‘-a’\n", 1<<16) + "     desc\n")},
		{"many table rows", oneNode("A   B\n----------\n" + strings.Repeat("x   y\n", 1<<16))},
		{"spaces everywhere", oneNode(strings.Repeat("a   b\n   \n", 1<<15))},
		{"spaces and one column", oneNode(strings.Repeat("a\n   \n", 1<<15))},
		{"references and markers", oneNode(strings.Repeat("*note *note (1)(2)( *a _b ‘c ", 1<<14) + "\n")},
		{"unclosed marker", oneNode("\x00\x08[image src=\"x\"\n" + strings.Repeat("text\n", 1000))},
		{"separators", strings.Repeat("\x1f\nFile: t,  Node: n,  Up: n\n", 1<<14)},
		{"menus", oneNode(strings.Repeat("* Menu:\n* a::\nx\n\n", 1<<14))},
		{"binary", "\x1f\x00\xff\x1f\nNode: \x7f\n\x00\x08[\x1f\n\xc3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("t.info", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
		})
	}
}
