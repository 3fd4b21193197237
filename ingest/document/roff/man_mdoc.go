package roff

import (
	"strings"

	"github.com/reqa/reqa/ingest/document"
)

// This file reads mdoc(7), the BSD manual page macros: .Dt is the title,
// .Sh and .Ss headings, .Pp paragraphs, .Bl/.It/.El lists (tag lists are
// definitions, "-e: …" for ".It Fl e"; bullet, dash, item and enum lists
// list items; column lists rows), .Bd -literal/-unfilled and .Dl code, and
// the inline macros (.Nm .Fl .Ar .Cm .Pa .Ev .Xr .Em .Sy .Dq .Ql .Op .Li
// .Va .Dv .Er .Ic .No .Ns and the rest) their text, with mdoc's spacing
// around punctuation.

// mdocStart are the macros that make a page without a man(7) title an
// mdoc one.
var mdocStart = map[string]bool{"Dd": true, "Dt": true, "Os": true, "Sh": true}

// mdocCallable are the macros an mdoc line may call from its arguments
// (".Op Fl a Ar file" calls Fl and Ar).
var mdocCallable = map[string]bool{}

func init() {
	for _, m := range strings.Fields("Ac Ad An Ao Ap Aq Ar At Bc Bo Bq Brc Bro Brq Bsx Bx Cd Cm Dc Do Dq Dv Dx Em Er Es Ev Fa Fc Fl Fn Fo Fr Ft Fx Ic Li Lk Ms Mt Nm No Ns Nx Oc Oo Op Ot Ox Pa Pc Pf Po Pq Qc Ql Qo Qq Sc So Sq Sx Sy Ta Tn Ux Va Vt Xr %A %B %C %D %I %J %N %O %P %Q %R %T %U %V") {
		mdocCallable[m] = true
	}
}

// mdocEnclosures are the macros that enclose the rest of their line, and
// mdocOpen/mdocClose those that open and close an enclosure over lines:
// the text around.
var (
	mdocEnclosures = map[string][2]string{
		"Op": {"[", "]"}, "Dq": {"“", "”"}, "Sq": {"‘", "’"}, "Ql": {"‘", "’"}, "Qq": {"\"", "\""},
		"Pq": {"(", ")"}, "Bq": {"[", "]"}, "Brq": {"{", "}"}, "Aq": {"⟨", "⟩"},
	}
	mdocOpen  = map[string]string{"Oo": "[", "Do": "“", "So": "‘", "Qo": "\"", "Po": "(", "Bo": "[", "Bro": "{", "Ao": "⟨"}
	mdocClose = map[string]string{"Oc": "]", "Dc": "”", "Sc": "’", "Qc": "\"", "Pc": ")", "Bc": "]", "Brc": "}", "Ac": "⟩"}
	// mdocSystems are the names the operating system macros write.
	mdocSystems = map[string]string{
		"Bx": "BSD", "Bsx": "BSD/OS", "Dx": "DragonFly", "Fx": "FreeBSD", "Nx": "NetBSD",
		"Ox": "OpenBSD", "Ux": "UNIX", "At": "AT&T UNIX",
	}
)

// mdocRequest runs an mdoc macro line; it reports whether it knew name.
func (r *manReader) mdocRequest(name, rest string, args []string) bool {
	if name == "Sm" {
		// Spacing mode: off, words follow each other without spaces.
		r.smOff = len(args) == 0 && !r.smOff || len(args) > 0 && args[0] == "off"
		if r.xo != nil {
			r.xo.spacing(r.smOff)
		}
		return true
	}
	if r.xo != nil {
		// An .It term spread over lines, up to .Xc.
		if name != "Xc" {
			if _, xc := r.mdocRun(r.xo, append([]string{name}, args...)); !xc {
				return true
			}
		}
		term := r.xo.String()
		r.xo = nil
		r.termItem(document.Collapse(term), r.xoLine)
		return true
	}
	switch name {
	case "Dd", "Os":
		r.mdoc = true
	case "Dt":
		r.mdoc = true
		r.endAll()
		if len(args) > 0 {
			r.setHeading(1, r.join(args[:1], ""), r.n)
		}
	case "Sh", "Ss":
		r.mdoc = true
		r.endAll()
		level := 2
		if name == "Ss" {
			level = 3
		}
		if t := r.mdocText(args); strings.TrimSpace(t) != "" {
			r.setHeading(level, t, r.n)
		} else {
			r.heading, r.headingLine = level, r.n
		}
	case "Pp", "Lp":
		r.endCode()
		r.endPara()
	case "Bl":
		r.endPara()
		list := "tag"
		for _, a := range args {
			switch a {
			case "-bullet", "-dash", "-hyphen", "-item", "-enum":
				list = "bullet"
			case "-column":
				list = "column"
			}
		}
		r.push(list)
	case "El":
		r.endPara()
		r.pop()
	case "It":
		r.mdocItem(rest, args)
	case "Bd":
		r.endPara()
		for _, a := range args {
			if a == "-literal" || a == "-unfilled" {
				r.startCode()
			}
		}
	case "Ed":
		r.endCode()
		r.endPara()
	case "D1":
		r.endPara()
		r.text(r.mdocText(args), false)
		r.endPara()
	case "Dl":
		r.endPara()
		r.startCode()
		r.text(r.mdocText(args), false)
		r.endCode()
	case "Rs", "Re":
		r.endPara()
	case "Nd":
		r.text("- "+r.mdocText(args), false)
	case "Ex", "Rv":
		var names []string
		for _, a := range args {
			if a != "-std" {
				names = append(names, r.join([]string{a}, ""))
			}
		}
		if len(names) == 0 {
			names = []string{r.mdocName}
		}
		if name == "Ex" {
			r.text("The "+strings.Join(names, " and ")+" utility exits 0 on success, and >0 if an error occurs.", false)
		} else {
			r.text("The "+strings.Join(names, "(), ")+"() function returns the value 0 if successful; otherwise the value -1 is returned and the global variable errno is set to indicate the error.", false)
		}
	case "An":
		var keep []string
		for _, a := range args {
			if a != "-split" && a != "-nosplit" {
				keep = append(keep, a)
			}
		}
		if len(keep) > 0 {
			r.text(r.mdocText(keep), false)
		}
	case "In":
		if len(args) > 0 {
			r.text("#include <"+r.join(args[:1], "")+">", false)
		}
	case "Fd", "Ft", "Lb":
		r.text(r.mdocText(args), false)
	case "Bf", "Ef", "Bk", "Ek", "Db", "Tg", "Xo", "Xc":
	default:
		if !mdocCallable[name] {
			return false
		}
		if name == "Nm" && r.synopsis {
			r.endPara() // each synopsis of a command on its own
		}
		w := r.mdocWriter()
		r.mdocRun(w, append([]string{name}, args...))
		t := w.String()
		if name == "Ns" || name == "Ap" || r.smOff || mdocClosing(strings.SplitN(t, " ", 2)[0]) {
			r.glue = true
		}
		r.text(t, w.nospace)
	}
	return true
}

// mdocText renders the arguments of a line's macro.
func (r *manReader) mdocText(args []string) string {
	w := r.mdocWriter()
	r.mdocRun(w, args)
	return w.String()
}

// mdocItem runs .It: a term in a tag list (the rest of the line, or up to
// .Xc when it ends in Xo), a list item in a bullet list, a row in a column
// list.
func (r *manReader) mdocItem(rest string, args []string) {
	r.endCode()
	r.endPara()
	lvl := r.level()
	switch lvl.list {
	case "bullet":
		r.openItem(document.ListItem, "", r.n)
	case "column":
		r.closeItem()
		var cells []string
		bold := true
		for _, part := range strings.Split(rest, "\t") {
			var cell []string
			flush := func() {
				bold = bold && len(cell) > 0 && cell[0] == "Sy"
				cells = append(cells, document.Collapse(r.mdocText(cell)))
				cell = nil
			}
			for _, a := range roffArgs(part) {
				if a == "Ta" {
					flush()
					continue
				}
				cell = append(cell, a)
			}
			flush()
		}
		if lvl.rows == 0 {
			lvl.group = r.b.NewGroup()
			lvl.groupKind = ""
		}
		lvl.rows++
		if lvl.rows == 1 && bold && len(cells) > 1 {
			lvl.head = cells
			return
		}
		if lvl.head != nil {
			r.emit(document.TableRow, document.RowText(lvl.head, cells), 0, r.parents(false), r.n, lvl.group)
			return
		}
		var keep []string
		for _, c := range cells {
			if c != "" {
				keep = append(keep, c)
			}
		}
		r.emit(document.Paragraph, strings.Join(keep, "; "), 0, r.parents(false), r.n, lvl.group)
	default:
		w := r.mdocWriter()
		if xo, xc := r.mdocRun(w, args); xo && !xc {
			r.xo, r.xoLine = w, r.n
			return
		}
		r.termItem(document.Collapse(w.String()), r.n)
	}
}

// mdocWriter writes mdoc words with mdoc's spacing: a space between words
// but before closing punctuation and after opening punctuation, and none
// while spacing is off (.Sm off) but before the first word.
type mdocWriter struct {
	sb      strings.Builder
	nospace bool // the next word follows without a space
	off     bool // spacing is off
	first   bool // and no word was written since
}

// mdocWriter returns a writer in the page's spacing mode.
func (r *manReader) mdocWriter() *mdocWriter { return &mdocWriter{off: r.smOff} }

// spacing turns spacing off (true) or on.
func (w *mdocWriter) spacing(off bool) { w.off, w.first = off, off }

func (w *mdocWriter) word(s string) {
	if s == "" {
		return
	}
	if w.sb.Len() > 0 && !w.nospace && !mdocClosing(s) && (!w.off || w.first) {
		w.sb.WriteByte(' ')
	}
	w.first = false
	w.sb.WriteString(s)
	w.nospace = s == "(" || s == "["
}

func (w *mdocWriter) String() string { return w.sb.String() }

// mdocClosing reports whether s is closing punctuation, written without a
// space before it.
func mdocClosing(s string) bool {
	switch s {
	case ".", ",", ":", ";", ")", "]", "?", "!":
		return true
	}
	return false
}

// mdocDelim reports whether s is an mdoc delimiter (punctuation that
// macros pass through as it is).
func mdocDelim(s string) bool { return mdocClosing(s) || s == "(" || s == "[" || s == "|" }

// mdocRun renders args, words and the macros they call, to w. It reports
// an Xo (the line goes on on the next ones) and an Xc (where it ends).
func (r *manReader) mdocRun(w *mdocWriter, args []string) (xo, xc bool) {
	for i := 0; i < len(args); {
		switch a := args[i]; {
		case a == "Xo":
			xo = true
			i++
		case a == "Xc":
			return xo, true
		case mdocCallable[a]:
			i = r.mdocMacro(w, a, args, i+1)
		default:
			w.word(r.join([]string{a}, ""))
			i++
		}
	}
	return xo, false
}

// mdocMacro renders the macro name whose arguments start at args[i] and
// returns where the line goes on: at the next macro called, or at its end
// for the macros that enclose the rest of the line.
func (r *manReader) mdocMacro(w *mdocWriter, name string, args []string, i int) int {
	j := i
	for j < len(args) && !mdocCallable[args[j]] && args[j] != "Xo" && args[j] != "Xc" {
		j++
	}
	own := args[i:j]
	words := func(as []string) {
		for _, a := range as {
			w.word(r.join([]string{a}, ""))
		}
	}
	if q, ok := mdocEnclosures[name]; ok {
		rest := args[i:]
		k := len(rest)
		for k > 0 && mdocClosing(rest[k-1]) {
			k--
		}
		inner := &mdocWriter{off: w.off}
		r.mdocRun(inner, rest[:k])
		w.word(q[0] + inner.String() + q[1])
		words(rest[k:])
		return len(args)
	}
	if o, ok := mdocOpen[name]; ok {
		w.word(o)
		w.nospace = true
		words(own)
		return j
	}
	if c, ok := mdocClose[name]; ok {
		w.nospace = true
		w.word(c)
		words(own)
		return j
	}
	switch name {
	case "Fl":
		if len(own) == 0 || mdocDelim(own[0]) {
			w.word("-")
		}
		for _, a := range own {
			if mdocDelim(a) {
				w.word(a)
			} else {
				w.word("-" + r.join([]string{a}, ""))
			}
		}
	case "Ar":
		if len(own) == 0 || mdocDelim(own[0]) {
			w.word("file")
			w.word("...")
		}
		words(own)
	case "Xr":
		if len(own) >= 2 && !mdocDelim(own[0]) {
			w.word(r.join(own[:1], "") + "(" + r.join(own[1:2], "") + ")")
			own = own[2:]
		}
		words(own)
	case "Nm":
		if len(own) > 0 && !mdocDelim(own[0]) {
			if r.mdocName == "" {
				r.mdocName = r.join(own[:1], "")
			}
		} else {
			w.word(r.mdocName)
		}
		words(own)
	case "Ns":
		w.nospace = true
		words(own)
	case "Ap":
		w.nospace = true
		w.word("'")
		w.nospace = true
		words(own)
	case "Pf":
		if len(own) > 0 {
			w.word(r.join(own[:1], ""))
			w.nospace = true
			own = own[1:]
		}
		words(own)
	case "Fn":
		if len(own) > 0 && !mdocDelim(own[0]) {
			var as []string
			k := 1
			for ; k < len(own) && !mdocDelim(own[k]); k++ {
				as = append(as, r.join(own[k:k+1], ""))
			}
			w.word(r.join(own[:1], "") + "(" + strings.Join(as, ", ") + ")")
			own = own[k:]
		}
		words(own)
	case "Fo":
		if len(own) > 0 {
			w.word(r.join(own[:1], "") + "(")
			w.nospace = true
			own = own[1:]
		}
		words(own)
	case "Fc":
		w.nospace = true
		w.word(")")
		words(own)
	case "Lk":
		switch {
		case len(own) > 1:
			words(own[1:])
		default:
			words(own)
		}
	case "Ta":
		w.word(";")
		words(own)
	case "St":
		for _, a := range own {
			if !mdocDelim(a) {
				a = strings.TrimPrefix(a, "-")
			}
			w.word(r.join([]string{a}, ""))
		}
	default:
		if s, ok := mdocSystems[name]; ok {
			w.word(s)
		}
		words(own)
	}
	return j
}
