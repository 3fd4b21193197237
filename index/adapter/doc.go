// Package adapter trains and applies a light question-side adapter on frozen
// sentence embeddings: reqa's in-domain fine-tuning.
//
// The paper's strongest neural results fine-tune both towers of a dual
// encoder on in-domain question–answer pairs with an in-batch softmax,
//
//	P(y|x) = exp(φ(x,y)/τ) / Σ_{y'∈batch} exp(φ(x,y')/τ),  φ(x,y) = dot(f(x), a_y),
//
// where every other answer of the batch serves as a negative. Fine-tuning a
// transformer is out of reach of a CPU appliance, but the same objective can
// train a small map f on top of the frozen question embeddings while the
// answer vectors stored in the index stay as they are. Three shapes are
// offered, all residual so that training starts from the untuned encoder:
//
//   - [Linear]: f(q) = q + D q, a full dim×dim map (the identity plus D;
//     weight decay pulls it back toward the identity);
//   - [LowRank]: f(q) = q + U Vᵀ q, rank r;
//   - [MLP]: f(q) = q + W2 relu(W1 q + b1), a small residual MLP.
//
// The output is re-normalised to unit length, so scores stay cosines.
// Optional hard negatives follow the paper's error analysis: the other
// sentences of the gold sentence's context (right context, wrong sentence)
// join each batch as extra negatives.
//
// [Train] is pure Go (hand-written loops, Adam), deterministic for a seed
// (fixed shuffles, fixed work partition, no map iteration in arithmetic),
// reports progress and honours context cancellation. It holds out part of
// the training questions and keeps the epoch with the best validation P@1
// (early stopping). An [Adapter] is stored in the index as a versioned,
// checksummed binary blob ([Adapter.Marshal], [Unmarshal]) that records the
// hash of the encoder it was trained for; [Adapter.CheckEncoder] refuses any
// other encoder.
package adapter
