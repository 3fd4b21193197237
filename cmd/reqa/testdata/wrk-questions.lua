-- Cycles through a fixed list of SQuAD-style questions, each made distinct
-- by a request number (so the server's cache of recent question embeddings
-- never hits: every request pays its question embedding).
local qs = {"Which+NFL+team+represented+the+AFC+at+Super+Bowl+50%3F", "Where+did+Super+Bowl+50+take+place%3F", "What+is+the+capital+of+Poland%3F", "Who+was+the+first+emperor+of+the+Mongol+empire%3F", "What+causes+the+immune+system+to+react%3F", "When+did+the+oil+crisis+begin%3F", "What+is+packet+switching%3F", "Who+founded+the+University+of+Chicago%3F"}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", "/v1/ask?k=5&ranker=" .. ranker .. "&q=" .. qs[(i % #qs) + 1] .. "+" .. i)
end
init = function(args) ranker = args[1] or "bm25-wpm" end
