package roff

import (
	"github.com/reqa/reqa/ingest/document/internal/doctest"
	"strings"
	"testing"

	"github.com/reqa/reqa/ingest/document"
)

// TestManPage reads testdata/frob.1, an invented man(7) page that uses
// every construct the reader knows.
func TestManPage(t *testing.T) {
	d := parseFile(t, "frob.1", document.Man)
	if d.Title != "FROB" || d.Format != document.Man {
		t.Errorf("title %q, format %q", d.Title, d.Format)
	}
	doctest.CheckLines(t, "sections", doctest.SectionPaths(d), []string{
		"FROB#frob@8",
		"FROB › NAME#name@12",
		"FROB › SYNOPSIS#synopsis@14",
		"FROB › DESCRIPTION#description@20",
		"FROB › DESCRIPTION › Exit status#exit-status@62",
		"FROB › OPTIONS#options@69",
		"FROB › OPTIONS › Environment#environment@108",
		"FROB › FILES#files@127",
		"FROB › SEE ALSO#see-also@133",
	})
	doctest.CheckBlocks(t, d, []string{
		"paragraph|FROB › NAME|frob - frobnicate files",
		"code|FROB › SYNOPSIS|frob [-n] [--level N] file...",
		"paragraph|FROB › DESCRIPTION|frob rewrites each file in place. It keeps a backup frob.bak(5) unless told otherwise.",
		"paragraph|FROB › DESCRIPTION|Version 2.1 reads “quoted” text, em—dashes, éléve, code and bold fonts, sizes SMALL and big, a register and a tie, “strings” and a joined word. Nroff text is read. Groff reads this. the frob site. Mail frob@example.org; bugs go to https://example.org/bugs.",
		"paragraph|FROB › DESCRIPTION|Note: Frobbing is permanent.",
		"list-item|FROB › DESCRIPTION › Exit status|Zero when every file was frobnicated.",
		"list-item|FROB › DESCRIPTION › Exit status|One when a file could not be read.",
		"list-item|FROB › DESCRIPTION › Exit status|It is logged.",
		"definition|FROB › OPTIONS|-n, --dry-run: Show what would change without writing anything.",
		"definition|FROB › OPTIONS|--level N: Frobnicate N times.",
		"definition|FROB › OPTIONS|-q, --quiet: Print nothing.",
		"definition|FROB › OPTIONS|--mode M: Choose how to frob:",
		"definition|FROB › OPTIONS|fast: Skip the backup.",
		"definition|FROB › OPTIONS|safe: Keep two backups.",
		"definition|FROB › OPTIONS|The default is safe.",
		"definition|FROB › OPTIONS|-x, --exclude=glob: Skip files matching glob.",
		"paragraph|FROB › OPTIONS|For example:",
		"code|FROB › OPTIONS|$ frob --level 2 notes.txt",
		"code|FROB › OPTIONS|backup:   notes.txt.bak",
		"table-row|FROB › OPTIONS › Environment|Variable: FROB_HOME; Effect: Where backups are kept.",
		"table-row|FROB › OPTIONS › Environment|Variable: FROB_QUIET; Effect: Silences all warnings.",
		"paragraph|FROB › OPTIONS › Environment|Colours:",
		"paragraph|FROB › OPTIONS › Environment|red; stop",
		"paragraph|FROB › OPTIONS › Environment|green; go",
		"definition|FROB › FILES|~/.frobrc: Read at start.",
		"paragraph|FROB › SEE ALSO|frobrc(5), cp(1).",
	})
	// Terms, parents and lines (a definition is where its term is).
	want := []string{
		"paragraph|||frob - frobnicate files|13",
		"code|||frob [-n] [--level N] file...|15",
		"paragraph|||frob rewrites each file in place. It keeps a backup frob.bak(5) unless told otherwise.|21",
		"paragraph|||" + flatten(d)[3].Text + "|29",
		"paragraph|||Note: Frobbing is permanent.|61",
		"list-item|||Zero when every file was frobnicated.|64",
		"list-item|||One when a file could not be read.|66",
		"list-item|||It is logged.|68",
		"definition|-n, --dry-run||-n, --dry-run: Show what would change without writing anything.|71",
		"definition|--level N||--level N: Frobnicate N times.|74",
		"definition|-q, --quiet||-q, --quiet: Print nothing.|79",
		"definition|--mode M||--mode M: Choose how to frob:|84",
		"definition|fast|--mode M|fast: Skip the backup.|88",
		"definition|safe|--mode M|safe: Keep two backups.|91",
		"definition|||The default is safe.|95",
		"definition|-x, --exclude=glob||-x, --exclude=glob: Skip files matching glob.|96",
		"paragraph|||For example:|100",
		"code|||$ frob --level 2 notes.txt|103",
		"code|||backup:   notes.txt.bak|106",
		"table-row|||Variable: FROB_HOME; Effect: Where backups are kept.|114",
		"table-row|||Variable: FROB_QUIET; Effect: Silences all warnings.|115",
		"paragraph|||Colours:|121",
		"paragraph|||red; stop|124",
		"paragraph|||green; go|125",
		"definition|~/.frobrc||~/.frobrc: Read at start.|129",
		"paragraph|||frobrc(5), cp(1).|135",
	}
	doctest.CheckLines(t, "blocks", doctest.ManBlocks(d), want)
	// Groups: the options are one definition list, the nested one
	// another; the table's rows one group.
	opts := d.Sections[5].Blocks
	if opts[0].Group != opts[3].Group || opts[4].Group != opts[5].Group || opts[4].Group == opts[0].Group || opts[6].Group != opts[0].Group {
		t.Errorf("option groups %d %d %d %d %d", opts[0].Group, opts[3].Group, opts[4].Group, opts[5].Group, opts[6].Group)
	}
	for _, skipped := range []string{"ignored", "skipped", "Troff", "Other troff", "unknown", "other.7", "comment", "Nt", `\`, "2024-01-01", "User Commands"} {
		doctest.Absent(t, d, skipped)
	}
	doctest.CandidatesLack(t, d, "$ frob")
}

// TestManMdoc reads testdata/gizmo.1, an invented mdoc(7) page.
func TestManMdoc(t *testing.T) {
	d := parseFile(t, "gizmo.1", document.Man)
	if d.Title != "GIZMO" {
		t.Errorf("title %q", d.Title)
	}
	doctest.CheckLines(t, "sections", doctest.SectionPaths(d), []string{
		"GIZMO#gizmo@3",
		"GIZMO › NAME#name@5",
		"GIZMO › SYNOPSIS#synopsis@8",
		"GIZMO › DESCRIPTION#description@13",
		"GIZMO › ENVIRONMENT#environment@56",
		"GIZMO › EXIT STATUS#exit-status@61",
	})
	doctest.CheckLines(t, "blocks", doctest.ManBlocks(d), []string{
		"paragraph|||gizmo - tune widgets|6",
		"code|||gizmo [-qv] [-o file] widget ...|9",
		"paragraph|||The gizmo utility tunes each widget named on the command line (see widgetd(8)). Read “the widget guide” first.|14",
		"paragraph|||The options are as follows:|24",
		"definition|-o file||-o file: Write the report to file instead of standard output.|26",
		"definition|-q, -v||-q, -v: Be quiet, or verbose.|31",
		"definition|-m mode||-m mode: Choose a mode:|34",
		"definition|fast|-m mode|fast: Skip checks.|37",
		"definition|-p port||-p port: Listen on port.|40",
		"list-item|||Widgets are tuned in order.|49",
		"list-item|||Errors stop the run.|51",
		"code|||$ gizmo -q w1|54",
		"table-row|||Variable: GIZMO_HOME; Meaning: where widgets live|59",
		"paragraph|||The gizmo utility exits 0 on success, and >0 if an error occurs.|62",
	})
}

// TestManConstructs checks small inputs, one construct each.
func TestManConstructs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // "kind|term|parents|text|line" per block
	}{
		{"no title macro", "Just text\nover lines.\n\nNext.", []string{"paragraph|||Just text over lines.|1", "paragraph|||Next.|4"}},
		{"latin-1", ".TH X 1\n.SH NAME\ncaf\xe9 \xfcber\n", []string{"paragraph|||café über|3"}},
		{"crlf and bom", "\xef\xbb\xbf.TH X 1\r\n.PP\r\nOne.\r\n", []string{"paragraph|||One.|3"}},
		{"quote control character", "'\\\" comment\n'br\nText.\n'PP\nMore.", []string{"paragraph|||Text.|3", "paragraph|||More.|5"}},
		{"continued line", "a \\\nb\n", []string{"paragraph|||a b|1"}},
		{"hash comment joins", "one \\# gone\ntwo\n", []string{"paragraph|||one two|1"}},
		{"quoted arguments", ".B \"two words\" \"say \"\"hi\"\"\"\n", []string{"paragraph|||two words say \"hi\"|1"}},
		{"alternating fonts", ".BI \\-o \" file\"\n.RB [ \\-v ]\n", []string{"paragraph|||-o file [-v]|1"}},
		{"font macro on the next line", ".B\nbold text\n", []string{"paragraph|||bold text|2"}},
		{"escaped space and width escapes", "a\\ b\\h'2m'c\\w'xyz'd\\0e\n", []string{"paragraph|||a b cd e|1"}},
		{"glyphs", "\\(co \\(rg \\(tm \\(mi1 \\(pl \\(mu \\(di \\(<= \\(>= \\(!= \\(-> \\(<- \\(ua \\(da\n", []string{"paragraph|||© ® ™ -1 + × ÷ ≤ ≥ ≠ → ← ↑ ↓|1"}},
		{"more glyphs", "\\(ti\\(ha\\(rs\\(sl\\(ba\\(br\\(ga\\(ul \\(dg\\(bv\\(lB\\(rB\\(lC\\(rC \\(Fo\\(Fc\\(fo\\(fc \\(oq\\(cq\\(dq\\(aq \\(en\\(hy \\[char65]\\N'66'\\C'bu'\n", []string{"paragraph|||~^\\/||`_ †|[]{} «»‹› ‘’\"' –- AB•|1"}},
		{"escapes that vanish", "a\\&b\\|c\\^d\\%e\\:f\\)g\\/h\\,i\\fBj\\fIk\\fRl\\fPm\\f(CWn\\f[B]o\\s-1p\\s0q\\s[+2]r\\n(xxs\\n[yy]t\\nzu\\*(zzv\n", []string{"paragraph|||abcdefghijklmnopqrstuv|1"}},
		{"backslashes", "a\\eb c\\\\d \\-e \\Ef\n", []string{"paragraph|||a\\b c\\d -e \\f|1"}},
		{"strings", ".ds X ex\n.ds YY why\n.as YY \" not\n.ds ZZZ zed\n\\*X \\*(YY \\*[ZZZ] \\*(lq\\*(rq \\*R\n", []string{"paragraph|||ex why not zed “” ®|5"}},
		{"recursive strings", ".ds a \\*a\\*a\\*a\nx\\*ay\n", []string{"paragraph|||xy|2"}},
		{"number registers in conditions", ".nr X 3\n.if \\nX>2 three\n.if \\nX=2 two\n.if (\\n[X]*2)=6 six\n.if !\\n(.g not groff\n.if r X set\n", []string{"paragraph|||three six set|2"}},
		{"string comparison", ".ds a yes\n.if '\\*a'yes' same\n.if \"\\*a\"no\" differs\n", []string{"paragraph|||same|2"}},
		{"nested conditional blocks", ".if t \\{\\\n.if n \\{\\\nhidden\n.\\}\nhidden too\n.\\}\n.ie n \\{\\\nshown\n.\\}\n.el \\{\\\nnot shown\n.\\}\n", []string{"paragraph|||shown|7"}},
		{"unknown condition is false", ".if \\w'x' odd\n.ie o odd page\n.el even page\n", []string{"paragraph|||even page|3"}},
		{"defined macros", ".if !d TQ \\{\\\n.de TQ\n.br\n..\n.\\}\n.TP\n.B \\-a\n.TQ\n.B \\-b\nBoth.\n", []string{"definition|-a, -b||-a, -b: Both.|7"}},
		{"page macros run", ".de Qz\n.B \"\\\\$1\"\n\\\\$2\n..\n.Qz one two\n", []string{"paragraph|||one two|5"}},
		{"recursive macros stop", ".de a\nx\n.a\n..\n.a\n", []string{"paragraph|||" + strings.TrimSpace(strings.Repeat("x ", maxMacroDepth)) + "|5"}},
		{"heading on the next line", ".SH\nSEE ALSO\nText.\n.SS\n.B Sub\nMore.\n", []string{"paragraph|||Text.|3", "paragraph|||More.|6"}},
		{"TP with a description of its own", ".TP\nterm\n.TP\nother\nDescribed.\n", []string{"definition|term, other||term, other: Described.|2"}},
		{"TP term with \\c", ".TP\n\\fB\\-x\\fP \\c\n.I file\nTakes a file.\n", []string{"definition|-x file||-x file: Takes a file.|2"}},
		{"TP without description", ".TP\nlonely\n.PP\nAfter.\n", []string{"paragraph|||lonely|2", "paragraph|||After.|4"}},
		{"IP numbers and dashes", ".IP 1. 4\nFirst.\n.IP 2. 4\nSecond.\n.IP \\- 2\nDash.\n", []string{"list-item|||First.|2", "list-item|||Second.|4", "list-item|||Dash.|6"}},
		{"IP with no tag and no item", ".IP\nIndented.\n", []string{"paragraph|||Indented.|2"}},
		{"pod2man stacked tags", ".IP \"\\fB\\-a\\fR\" 4\n.IX Item \"-a\"\n.PD 0\n.IP \"\\fB\\-\\-all\\fR\" 4\n.PD\nEverything.\n", []string{"definition|-a, --all||-a, --all: Everything.|1"}},
		{"help2man", ".HP\n\\fB\\-n\\fR, \\fB\\-\\-quiet\\fR\n.IP\nsuppress printing\n.HP\n\\fB\\-\\-debug\\fR\n.IP\nannotate\n", []string{"definition|-n, --quiet||-n, --quiet: suppress printing|2", "definition|--debug||--debug: annotate|6"}},
		{"asciidoctor", ".sp\n\\fB\\-\\-noescape\\fP\n.RS 4\nKeep them.\n.RE\n.sp\nNot a term:\n.RS 4\nindented\n.RE\n", []string{"definition|--noescape||--noescape: Keep them.|2", "paragraph|||Not a term:|7", "paragraph|||indented|9"}},
		{"docbook nroff bullets", ".RS 4\n.ie n \\{\\\n\\h'-04'\\(bu\\h'+03'\\c\n.\\}\n.el \\{\\\n.sp -1\n.IP \\(bu 2.3\n.\\}\nOne\n.RE\n.RS 4\n.ie n \\{\\\n\\h'-04'\\(bu\\h'+03'\\c\n.\\}\n.el \\{\\\n.sp -1\n.IP \\(bu 2.3\n.\\}\nTwo\n.RE\n", []string{"list-item|||One|2", "list-item|||Two|12"}},
		{"RS nesting", ".TP\nset\nSets.\n.RS\n.TP\n\\-e\nExits.\n.RS\n.IP \\(bu\nIn pipes.\n.RE\n.PP\nMore on set.\n.RE\n.TP\ncd\nChanges.\n.RE\n.PP\nAfter.\n",
			[]string{"definition|set||set: Sets.|2", "definition|-e|set|-e: Exits.|6", "list-item||set › -e|In pipes.|10", "definition|||More on set.|13", "definition|cd||cd: Changes.|16", "paragraph|||After.|20"}},
		{"RS under a term alone", ".TP\nset\n.RS\n.TP\n\\-e\nExits.\n.RE\n", []string{"definition|-e|set|-e: Exits.|5"}},
		{"nf keeps lines", ".nf\n  a  b\n\\fBc\\fP\n.sp\n.B d\n.fi\nfilled\n", []string{"code|||  a  b\nc\n\nd|2", "paragraph|||filled|7"}},
		{"headings end nf", ".nf\ncode\n.SH NEXT\ntext\n", []string{"code|||code|2", "paragraph|||text|4"}},
		{"synopsis section is code", ".SH SYNOPSIS\n.B frob\n[\\-a]\n.SH DESCRIPTION\nFrobs.\n", []string{"code|||frob [-a]|2", "paragraph|||Frobs.|5"}},
		{"link without text", "See\n.UR https://example.org\n.UE\n", []string{"paragraph|||See https://example.org|1"}},
		{"skipped blocks", ".ig\nno\n..\n.ig XX\nno\n.XX\n.EQ\nx sup 2\n.EN\n.PS\nbox\n.PE\n.de A B\n.no\n.B\nyes\n", []string{"paragraph|||yes|16"}},
		{"unknown requests and macros", ".Zz hidden args\n.ti 3\n.tr ab\n.lf 3\n.so x\n.mso y\nkept\n", []string{"paragraph|||kept|7"}},
		{"rules drawn in text", "---\n\nText.\n", []string{"paragraph|||Text.|3"}},
		{"tbl rule header and T{", ".TS\nbox;\nc c\nl l.\nName\tMeaning\n_\nx\tT{\nthe x\n.br\n\\fBthing\\fP\nT}\ny\tT{\nwhy\nT}\tignored\n.TE\n", []string{"table-row|||Name: x; Meaning: the x thing|7", "table-row|||Name: y; Meaning: why; ignored|12"}},
		{"tbl TH header and spans", ".TS H\nl l l.\nA\tB\tC\n.TH\n1\t\\^\t3\n.TE\n", []string{"table-row|||A: 1; C: 3|5"}},
		{"tbl inside a definition", ".TP\nterm\nWith:\n.TS\nl l.\na\tb\n.TE\n", []string{"definition|term||term: With:|2", "paragraph||term|a; b|6"}},
		{"mdoc spacing off", ".Dd x\n.Bl -tag\n.It Xo\n.Fl D\n.Sm off\n.Oo Ar host : Oc Ar port\n.Sm on\n.Xc\nForwards.\n.El\n", []string{"definition|-D [host:]port||-D [host:]port: Forwards.|3"}},
		{"mdoc inline", ".Dd x\n.Sh A\nRun\n.Ic make Ns = Ns Ar target ,\nsee\n.Sx FILES ,\n.Ql q\nand\n.Pf $ Ev HOME .\n.D1 Fl x\n.Dl $ make\n", []string{"paragraph|||Run make=target, see FILES, ‘q’ and $HOME.|3", "paragraph|||-x|10", "code|||$ make|11"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("t.1", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
			doctest.CheckLines(t, "blocks", doctest.ManBlocks(d), tc.want)
		})
	}
}

// TestManHostile checks inputs made to hurt: deep nesting, unclosed
// blocks, runaway macros and strings. They must read, quickly, without a
// panic.
func TestManHostile(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"deep RS", strings.Repeat(".RS\n.TP\nt\n", 10000) + "deep\n" + strings.Repeat(".RE\n", 20000)},
		{"deep mdoc lists", ".Dd x\n" + strings.Repeat(".Bl -tag\n.It x\n", 10000) + "deep\n"},
		{"unclosed everything", ".TS\nl.\nT{\n.de x\n.ig\n.if t \\{\n"},
		{"macro bomb", ".de a\n.a\n.a\n.a\n.a\n..\n.a\ndeep\n"},
		{"string bomb", ".ds a \\*b\\*b\\*b\\*b\\*b\\*b\\*b\\*b\n.ds b \\*c\\*c\\*c\\*c\\*c\\*c\\*c\\*c\n.ds c \\*a\\*a\\*a\\*a\\*a\\*a\\*a\\*a\n\\*a deep\n"},
		{"string growth", strings.Repeat(".as a xy\n", 100000) + strings.Repeat("\\*a", 20000) + "\n" + strings.Repeat(".TP\nt\\c\n", 50000)},
		{"conditions all the way", strings.Repeat(".if n ", 5000) + "deep\n"},
		{"broken escapes", "\\\n\\(\n\\[\n\\*[\n\\s+\n\\f\n\\h'\n\\N'99999999999'\n\\[u110000]\n\\[uD800]\ndeep\n"},
		{"expressions", ".if (((((((((( deep\n.if 1/0 x\n.if 5%0 x\n.nr a 1e99\n.if \\na deep\n"},
		{"binary", "\x00\xff\xfe.TH \x00\n.SH \xff\n\x00deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("t.1", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			doctest.CheckDocument(t, d)
		})
	}
}

// TestParseManFormat: Parse reads the man format.
func TestParseManFormat(t *testing.T) {
	d, err := Parse("x.1", []byte(".TH X 1\n.SH NAME\nx \\- does y\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "X" || len(d.Sections) != 2 || d.Sections[1].Blocks[0].Text != "x - does y" {
		t.Fatalf("document %+v", d)
	}
	if a := d.Anchor(d.Sections[1], d.Sections[1].Blocks[0]); a != "x.1:3#name" {
		t.Errorf("anchor %q", a)
	}
}
