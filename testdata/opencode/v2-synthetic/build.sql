-- An opencode.db with the v2 tables SPEC §4.3 describes (session_v2 + session_message), beside
-- v1 tables holding older or newer copies of some of the same sessions. No released OpenCode
-- writes session_v2 yet (1.18 has session_message with agent/model switch rows only), so this
-- store is built from the description; the tests build it with this script.
PRAGMA journal_mode = WAL;
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text,
  time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL,
  directory text NOT NULL, title text NOT NULL, version text NOT NULL, cost real DEFAULT 0 NOT NULL,
  tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
  tokens_cache_write integer DEFAULT 0 NOT NULL, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE session_v2 (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL,
  directory text NOT NULL, title text NOT NULL, version text NOT NULL, cost real DEFAULT 0 NOT NULL,
  tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
  tokens_cache_write integer DEFAULT 0 NOT NULL, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer);
CREATE TABLE session_message (id text PRIMARY KEY, session_id text NOT NULL, type text NOT NULL,
  seq integer NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE UNIQUE INDEX session_message_session_seq_idx ON session_message (session_id, seq);

INSERT INTO project VALUES ('prj1', '/home/dana/projects/app', 'git', NULL, 1796000000000, 1796000000000, '[]');

-- A v2-only session with every message type.
INSERT INTO session_v2 VALUES ('ses_v2only', 'prj1', NULL, 'calm-otter', '/home/dana/projects/app',
  'Fix the parser', '2.0.0', 0.12, 3000, 200, 0, 1000, 100, 'build',
  '{"id":"claude-sonnet-4-5","providerID":"anthropic"}', 1796000001000, 1796000009000, NULL);
INSERT INTO session_message VALUES
 ('m01', 'ses_v2only', 'user', 1, 1796000001000, 1796000001000, '{"content":[{"type":"text","text":"Fix the parser, it drops the last line"}]}'),
 ('m02', 'ses_v2only', 'assistant', 2, 1796000002000, 1796000002000, '{"modelID":"claude-sonnet-4-5","content":[{"type":"reasoning","text":"Look at the loop bound."},{"type":"text","text":"Let me read it."},{"type":"tool","callID":"call_1","tool":"read","state":{"status":"completed","input":{"filePath":"/home/dana/projects/app/parse.rs"},"output":"fn parse() {}"}}]}'),
 ('m03', 'ses_v2only', 'assistant', 3, 1796000003000, 1796000003000, '{"modelID":"claude-sonnet-4-5","content":[{"type":"tool","callID":"call_2","tool":"edit","state":{"status":"completed","input":{"filePath":"/home/dana/projects/app/parse.rs","oldString":"<","newString":"<="},"output":"Edit applied successfully.","metadata":{"diff":"--- a\n+++ b\n@@ -1 +1 @@\n-for i in 0..n-1\n+for i in 0..n\n"}}},{"type":"text","text":"Fixed the off-by-one."}]}'),
 ('m04', 'ses_v2only', 'compaction', 4, 1796000004000, 1796000004000, '{"auto":true,"content":[{"type":"text","text":"The user asked to fix the parser; the loop bound was fixed."}]}'),
 ('m05', 'ses_v2only', 'synthetic', 5, 1796000005000, 1796000005000, '{"content":[{"type":"text","text":"Continue if you have next steps."}]}'),
 ('m06', 'ses_v2only', 'system', 6, 1796000005500, 1796000005500, '{"content":[{"type":"text","text":"agent switched to build"}]}'),
 ('m07', 'ses_v2only', 'user', 7, 1796000006000, 1796000006000, '{"content":[{"type":"text","text":"Add a test"}]}'),
 ('m08', 'ses_v2only', 'assistant', 8, 1796000007000, 1796000007000, '{"modelID":"claude-sonnet-4-5","content":[{"type":"tool","callID":"call_3","tool":"bash","state":{"status":"error","input":{"command":"cargo test"},"error":"1 test failed"}},{"type":"text","text":"The new test fails before the fix and passes after."}]}'),
 ('m09', 'ses_v2only', 'idle', 9, 1796000009000, 1796000009000, '{}');

-- A child of it (a subagent), v2 only.
INSERT INTO session_v2 VALUES ('ses_v2child', 'prj1', 'ses_v2only', 'quick-fox', '/home/dana/projects/app',
  'Find the bug (@general subagent)', '2.0.0', 0.01, 100, 20, 0, 0, 0, 'general', NULL, 1796000002500, 1796000002900, NULL);
INSERT INTO session_message VALUES
 ('c01', 'ses_v2child', 'user', 1, 1796000002500, 1796000002500, '{"content":[{"type":"text","text":"Find the off-by-one in parse.rs"}]}'),
 ('c02', 'ses_v2child', 'assistant', 2, 1796000002900, 1796000002900, '{"content":[{"type":"text","text":"The loop stops one short."}]}');

-- In both tables; the v2 row is newer: v2 wins.
INSERT INTO session_v2 VALUES ('ses_v2newer', 'prj1', NULL, 's1', '/home/dana/projects/app', 'v2 copy (newer)', '2.0.0',
  0, 0, 0, 0, 0, 0, NULL, NULL, 1796000010000, 1796000020000, NULL);
INSERT INTO session_message VALUES
 ('n01', 'ses_v2newer', 'user', 1, 1796000010000, 1796000010000, '{"content":[{"type":"text","text":"one"}]}'),
 ('n02', 'ses_v2newer', 'assistant', 2, 1796000011000, 1796000011000, '{"content":[{"type":"text","text":"two"}]}'),
 ('n03', 'ses_v2newer', 'user', 3, 1796000019000, 1796000019000, '{"content":[{"type":"text","text":"three"}]}');
INSERT INTO session VALUES ('ses_v2newer', 'prj1', NULL, 's1', '/home/dana/projects/app', 'v1 copy (older)', '1.18.33',
  0, 0, 0, 0, 0, 0, NULL, NULL, 1796000010000, 1796000011000, NULL);
INSERT INTO message VALUES ('vm1', 'ses_v2newer', 1796000010000, 1796000010000, '{"role":"user"}');
INSERT INTO part VALUES ('vp1', 'vm1', 'ses_v2newer', 1796000010000, 1796000010000, '{"type":"text","text":"one"}');

-- In both tables with the same time_updated: v2 wins the tie.
INSERT INTO session_v2 VALUES ('ses_tie', 'prj1', NULL, 's2', '/home/dana/projects/app', 'v2 copy (tie)', '2.0.0',
  0, 0, 0, 0, 0, 0, NULL, NULL, 1796000030000, 1796000031000, NULL);
INSERT INTO session_message VALUES
 ('t01', 'ses_tie', 'user', 1, 1796000030000, 1796000030000, '{"content":[{"type":"text","text":"tie"}]}');
INSERT INTO session VALUES ('ses_tie', 'prj1', NULL, 's2', '/home/dana/projects/app', 'v1 copy (tie)', '1.18.33',
  0, 0, 0, 0, 0, 0, NULL, NULL, 1796000030000, 1796000031000, NULL);

-- In both tables; the v1 row is strictly newer: v1 wins, with its own counts.
INSERT INTO session_v2 VALUES ('ses_v1newer', 'prj1', NULL, 's3', '/home/dana/projects/app', 'v2 copy (older)', '2.0.0',
  0, 0, 0, 0, 0, 0, NULL, NULL, 1796000040000, 1796000041000, NULL);
INSERT INTO session VALUES ('ses_v1newer', 'prj1', NULL, 's3', '/home/dana/projects/app', 'v1 copy (newer)', '1.18.33',
  0.02, 50, 10, 0, 5, 1, 'build', NULL, 1796000040000, 1796000042000, 1796000043000);
INSERT INTO message VALUES
 ('wm1', 'ses_v1newer', 1796000040000, 1796000040000, '{"role":"user"}'),
 ('wm2', 'ses_v1newer', 1796000041000, 1796000041000, '{"role":"assistant","modelID":"gpt-5","parentID":"wm1","tokens":{"input":50,"output":10,"cache":{"read":5,"write":1}},"cost":0.02}');
INSERT INTO part VALUES
 ('wp1', 'wm1', 'ses_v1newer', 1796000040000, 1796000040000, '{"type":"text","text":"newer in v1"}'),
 ('wp2', 'wm2', 'ses_v1newer', 1796000041000, 1796000041000, '{"type":"text","text":"ok"}');
