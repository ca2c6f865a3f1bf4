-- FTS5 keeps up to `hashsize` bytes of new postings in memory before it writes them out as a
-- segment (1 MB by default: a first build of a large home wrote thousands of small segments
-- and then merged them again), and merges `automerge` segments of one level at a time (4 by
-- default). With 16 MB and 8, a first build of 1 GB of sessions spends about a sixth less
-- time writing the index, and a query still reads only a few segments per level (the search
-- benchmark's p95 is unchanged).
INSERT INTO search_fts(search_fts, rank) VALUES ('hashsize', 16777216);
INSERT INTO search_fts(search_fts, rank) VALUES ('automerge', 8);
