// Package bertgen writes structurally real BERT sentence encoders with
// seeded random weights, in the layout Hugging Face and sentence-transformers
// ship them, so that reqa's `--model DIR` can be tested on the graph a user
// brings (a BERT-base export: 12 layers, hidden 768, 12 heads, intermediate
// 3072, ~110 M parameters) and not only on toy graphs. Random weights give
// meaningless rankings; the models are for plumbing and equality tests.
//
// [Model] builds the ONNX graph the way torch.onnx / Optimum export
// BertModel: word, position and token-type embeddings and a layer norm;
// per layer, query/key/value projections as MatMul + Add by constant
// weights, heads split with Reshape/Transpose, scaled dot-product attention
// with an additive mask from attention_mask, the output projection,
// residual and layer norm, and the feed-forward block with erf GELU. Inputs
// are int64 input_ids and attention_mask [batch, sequence] and, when
// [Variant.TokenTypes], token_type_ids (without it, as Hugging Face does,
// every token has type 0). The output is last_hidden_state [batch,
// sequence, hidden], or, when [Variant.SentenceEmbedding], token_embeddings
// and sentence_embedding [batch, hidden] (masked mean and L2 norm inside the
// graph, as a sentence-transformers export with its pooling does).
//
// [WriteDir] writes a model directory around it: the ONNX file at a chosen
// place (model.onnx, onnx/model.onnx), the tokenizer.json given, and the
// sentence-transformers and transformers configuration files a [Layout]
// asks for (modules.json, 1_Pooling/config.json, sentence_bert_config.json,
// config_sentence_transformers.json, config.json, tokenizer_config.json).
//
// [Reference] computes the same network in plain Go (float64), from the
// same seeded weights, so a test can check the graph against it.
//
// cmd/reqa's model tests generate a BERT-tiny-shaped and a BERT-base-size
// graph of every variant once into os.TempDir() (keyed by [Version]) and
// run `reqa index --model`, `ask` and `eval` on directories around them.
package bertgen
