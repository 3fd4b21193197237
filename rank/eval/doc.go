// Package eval measures rankers on questions with known answers and
// prepares what is learned from them.
//
//   - [Golds] maps a dataset's questions (gold sentences named by the
//     dataset's candidate ids) to an index's sentence ids;
//     [SentencesByText] maps answer texts to them.
//   - [Run] runs a ranker over [Question]s and [Summarize] reports the
//     MultiReQA metrics in percent: P@1, MRR, P@5 and R@10. A question is
//     answered at rank r when its highest-ranked gold candidate is at r
//     (ties broken by candidate order): P@k counts r ≤ k, MRR averages 1/r
//     (see internal/metric), and R@10 averages the fraction of a question's
//     gold candidates ranked in the top 10. A [rank.Scorer] is ranked over
//     every candidate; any other ranker by its rank.RemoteDepth best.
//   - [TuneFusions] learns fusions on tuning questions ([TuningExamples]
//     reduces each question to what package rank/fuse fits on);
//     [AdapterData] prepares a question adapter's training data;
//     [SelfQuestions] makes pseudo-questions from the indexed text for
//     label-free adaptation (`reqa tune --self`).
//   - Package rank/eval/report writes eval's full report.
//
// The research experiments that chose the built-in defaults run here too,
// behind the build tag "experiment" (*_experiment_test.go).
package eval
