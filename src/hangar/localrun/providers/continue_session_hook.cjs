// hangar's session hook for Continue's `cn` (loaded with `node --require`, see continue_cli.py).
//
// cn 1.5.47 has no hook and no option naming the session it writes: it saves each session as
// <sessions dir>/<session id>.json with fs.writeFileSync, a new id after /clear and another
// file after a pick in /resume. This hook makes the cn process itself say which session files
// it writes: after each write of a session file it appends one JSON line to the notice file
// hangar named, {"session": ID, "baseline": N} on the first write of that file by this process
// (N = the history entries the file held before, i.e. not this run's), {"session": ID,
// "rewrite": N} after a write whose N entries replace what this process wrote before (a pick
// in /resume, a rewind: history, not new work), and {"session": ID} after every other write. A cn started elsewhere has no hook, so its sessions are never named.
//
// The hook removes its own variables (and its --require) from the environment at once, so the
// processes cn starts (the Bash tool, a node script) run exactly as without hangar.
"use strict";

const fs = require("fs");
const path = require("path");
const { syncBuiltinESMExports } = require("module");

const notices = process.env.HANGAR_CN_NOTICES;
const sessionsDir = process.env.HANGAR_CN_SESSIONS;
const original = process.env.HANGAR_CN_NODE_OPTIONS;
delete process.env.HANGAR_CN_NOTICES;
delete process.env.HANGAR_CN_SESSIONS;
delete process.env.HANGAR_CN_NODE_OPTIONS;
if (original === undefined || original === "") {
  delete process.env.NODE_OPTIONS;
} else {
  process.env.NODE_OPTIONS = original;
}

if (notices && sessionsDir) {
  const write = fs.writeFileSync;
  const append = fs.appendFileSync;
  const read = fs.readFileSync;
  const dir = path.resolve(sessionsDir);
  const started = new Set();

  const sessionOf = (file) => {
    if (typeof file !== "string") return null;
    const full = path.resolve(file);
    const name = path.basename(full);
    if (path.dirname(full) !== dir || name === "sessions.json" || !name.endsWith(".json")) {
      return null;
    }
    return name.slice(0, -".json".length);
  };

  const entriesIn = (file) => {
    try {
      const history = JSON.parse(read(file, "utf8")).history;
      return Array.isArray(history) ? history.length : 0;
    } catch {
      return 0; // no file yet (a new session), or not one cn can read either
    }
  };

  const notify = (record) => {
    try {
      append(notices, JSON.stringify(record) + "\n");
    } catch {
      // hangar's folder is gone (the run ended): cn goes on as without the hook
    }
  };

  // What each entry says (role, text, tool call ids): a save whose entries no longer begin
  // with what this process wrote before is a rewrite (a pick in /resume copies the picked
  // history into the current file, a rewind drops entries).
  const said = (entry) => {
    const message = (entry && entry.message) || {};
    const calls = Array.isArray(message.toolCalls) ? message.toolCalls : [];
    return JSON.stringify([message.role, message.content, calls.map((c) => (c && c.id) || "")]);
  };
  const savedEntries = (data) => {
    try {
      const text = typeof data === "string" ? data : Buffer.from(data).toString("utf8");
      const history = JSON.parse(text).history;
      return Array.isArray(history) ? history.map(said) : null;
    } catch {
      return null;
    }
  };
  const written = new Map();
  const rewrites = (before, now) => {
    if (before === undefined || now === null) return false;
    if (now.length < before.length - 1) return true;
    // the last entry may still gain text or tool results; the ones before it are settled
    return before.slice(0, -1).some((entry, index) => entry !== now[index]);
  };

  fs.writeFileSync = function writeFileSync(file, ...rest) {
    const session = sessionOf(file);
    if (session === null) return write.call(this, file, ...rest);
    const first = !started.has(session);
    const baseline = first ? entriesIn(file) : 0;
    started.add(session);
    const now = savedEntries(rest[0]);
    const rewrite = rewrites(written.get(session), now);
    if (now !== null) written.set(session, now);
    const result = write.call(this, file, ...rest);
    if (first) notify({ session, baseline });
    else if (rewrite) notify({ session, rewrite: now.length });
    else notify({ session });
    return result;
  };
  syncBuiltinESMExports(); // cn's bundle imports fs as an ES module namespace
}
