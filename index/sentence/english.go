package sentence

// Word lists of the English splitter, written for this package (they are not
// taken from any trained model).

// englishAbbreviations are word types, without their final period, after
// which a period does not end a sentence unless a likely sentence starter
// follows. Single letters need no entry: Punkt treats "J." as an initial.
var englishAbbreviations = []string{
	// Titles and ranks.
	"mr", "mrs", "ms", "messrs", "mme", "mlle", "dr", "drs", "prof", "rev", "revd", "fr", "sr", "snr", "jr", "jnr",
	"st", "ste", "mt", "ft", "gen", "col", "lt", "maj", "capt", "cmdr", "cdr", "adm", "brig", "sgt", "cpl", "pvt",
	"gov", "sen", "rep", "reps", "pres", "supt", "insp", "hon", "esq", "rt", "atty", "mgr", "mssrs",
	// Months (not "may", "june" or "july", which are words).
	"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
	// Latin and scholarly.
	"e.g", "i.e", "etc", "cf", "vs", "viz", "al", "ca", "approx", "ibid", "op", "cit", "seq", "sic",
	"n.b", "p.s", "a.d", "b.c", "b.c.e", "c.e", "a.m", "p.m", "a.k.a", "w.r.t",
	// Business and organisations.
	"inc", "ltd", "co", "corp", "bros", "dept", "univ", "assn", "assoc", "govt", "intl", "natl", "plc", "llc",
	"est", "div", "mfg",
	// Addresses.
	"ave", "blvd", "rd", "hwy", "sq",
	// References and numbering.
	"no", "nos", "vol", "vols", "pp", "fig", "figs", "ed", "eds", "ch", "sec", "secs", "para",
	"ps", "nr", "tel", "ref", "refs", "pt", "pts",
	// Places and states.
	"u.s", "u.s.a", "u.k", "u.n", "e.u", "u.s.s.r", "d.c", "n.y", "l.a", "calif", "conn", "penn",
	"ariz", "colo", "fla", "kan", "minn", "wis", "okla", "tenn", "mich", "neb",
	// Degrees.
	"ph.d", "b.a", "m.a", "b.sc", "m.sc", "m.d", "b.s", "m.s", "d.d.s", "ll.b", "ll.m", "m.b.a", "d.phil",
	// Units and measures usually abbreviated with a period.
	"lb", "lbs", "oz", "yd", "yds", "gal", "hr", "hrs", "yr", "yrs", "mos", "wk", "wks", "avg",
	// Others.
	"cca", "dept", "esp", "fl", "incl", "misc", "orig", "poss", "prob", "abt",
}

// englishStarters are words that often begin a sentence. After an
// abbreviation or an ellipsis a capitalised starter ends the sentence; after
// an initial it does too ("class A. The next"). One-letter words ("A", "I")
// are left out, since they also appear as initials.
var englishStarters = []string{
	"the", "an", "in", "it", "he", "she", "they", "we", "this", "that", "these", "those", "there", "here",
	"but", "and", "however", "after", "as", "at", "by", "for", "from", "if", "on", "some", "when", "while",
	"although", "though", "during", "since", "its", "his", "her", "their", "our", "my", "many", "most",
	"other", "such", "today", "yet", "so", "then", "thus", "what", "why", "how", "where", "each", "both",
	"all", "also", "because", "before", "despite", "following", "under", "with", "without", "unlike",
	"later", "meanwhile", "moreover", "furthermore", "nevertheless", "nonetheless", "instead", "finally",
	"another", "once", "only", "over", "several", "until", "whether", "you", "your", "not", "now",
	"even", "every", "further", "having", "into", "like", "neither", "there", "therefore", "hence",
	"indeed", "similarly", "likewise", "consequently", "accordingly", "afterwards", "afterward", "again",
	"among", "any", "about", "according", "along", "although", "around", "based", "being", "between",
	"beyond", "currently", "due", "either", "especially", "generally", "initially", "next", "none",
	"often", "originally", "per", "perhaps", "prior", "recently", "sometimes", "still", "subsequently",
	"through", "throughout", "thereafter", "to", "traditionally", "typically", "unfortunately", "usually",
	"within", "whereas", "which", "whose", "whom", "would", "could", "should", "one", "two", "three",
	"few", "more", "much", "nor", "or", "upon", "via", "what", "whatever", "whichever", "yes",
}
