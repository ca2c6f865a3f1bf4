// The bottom terminal panel: a device PTY in the open task's own directory (RW-253..258).
//
// One xterm.js terminal and one socket per workspace tool context: the terminal of task A is
// never shown for task B (RW-255); switching back to A shows A's terminal as it is, still
// connected (RW-256). Whether the panel is open is part of each context's state too. After a
// reload the page reattaches to the shell it had (its id is kept in sessionStorage) and the
// hub replays the output the device still keeps. The socket (/ui/terminal) is same-origin and
// carries this session's CSRF token as a subprotocol; the first frame names the context.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const pane = $("pane"), panel = $("terminal-panel"), hosts = $("terminal-hosts");
  const toggle = $("terminal-button");
  if (!pane || !panel || !toggle || typeof Terminal === "undefined") return;
  const enabled = pane.dataset.terminal !== "off";
  const SUBPROTOCOL = "hangar.terminal.v1";
  const INPUT_PART = 60000; // characters per input frame (the hub takes up to 65536)
  const sessions = new Map(); // context key -> TerminalSession
  let shown = null; // the session whose context is current

  mirrorBlockedStyles();

  const stored = (kind, key) => sessionStorage.getItem(`hangar.terminal.${kind}.${key}`);
  const store = (kind, key, value) => {
    const name = `hangar.terminal.${kind}.${key}`;
    if (value === null) sessionStorage.removeItem(name); else sessionStorage.setItem(name, value);
  };

  class TerminalSession {
    constructor(ctx) {
      this.ctx = ctx;
      this.key = hangarTools.key(ctx);
      this.host = document.createElement("div");
      this.host.className = "terminal-host";
      this.host.dataset.key = this.key;
      this.host.hidden = true;
      hosts.append(this.host);
      this.term = null;
      this.ws = null;
      this.received = 0; // bytes this xterm has shown (the offset to resume from)
      this.terminalId = stored("id", this.key);
      this.state = "";
      this.cwd = ctx.workspacePath;
      this.ended = false;
      this.panelOpen = stored("panel", this.key) === "open";
    }

    start() {
      if (this.term) return;
      this.term = new Terminal({
        cursorBlink: true, fontSize: 13, scrollback: 5000,
        fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
      });
      this.fit = new FitAddon.FitAddon();
      this.term.loadAddon(this.fit);
      this.term.open(this.host);
      this.term.onData((data) => {
        for (let i = 0; i < data.length; i += INPUT_PART) this.send({ type: "input", data: data.slice(i, i + INPUT_PART) });
      });
      this.term.onResize(({ cols, rows }) => this.send({ type: "resize", cols, rows }));
      this.connect();
    }

    connect() {
      this.setState("connecting…");
      const scheme = location.protocol === "https:" ? "wss://" : "ws://";
      const ws = new WebSocket(scheme + location.host + "/ui/terminal", [SUBPROTOCOL, "csrf." + hangar.csrf]);
      ws.binaryType = "arraybuffer";
      this.ws = ws;
      ws.addEventListener("open", () => {
        this.refit();
        const frame = { type: "open", deviceId: this.ctx.deviceId, workspacePath: this.ctx.workspacePath, cols: this.term.cols, rows: this.term.rows };
        if (this.ctx.localTaskId) frame.localTaskId = this.ctx.localTaskId;
        if (this.terminalId) frame.terminalId = this.terminalId;
        if (this.terminalId && this.received) frame.offset = this.received;
        ws.send(JSON.stringify(frame));
      });
      ws.addEventListener("message", (event) => {
        if (event.data instanceof ArrayBuffer) {
          this.term.write(new Uint8Array(event.data));
          this.received += event.data.byteLength;
          return;
        }
        this.control(JSON.parse(event.data));
      });
      ws.addEventListener("close", () => {
        if (this.ws !== ws) return;
        this.ws = null;
        if (!this.ended && !this.failed) this.setState("disconnected");
        this.showButtons();
      });
    }

    control(message) {
      if (message.type === "opened") {
        if (message.terminalId !== this.terminalId) this.received = 0;
        this.terminalId = message.terminalId;
        store("id", this.key, message.terminalId);
        this.cwd = message.cwd;
        this.ended = !message.running;
        this.failed = false;
        this.setState(message.reattached ? "reattached" : "running");
      } else if (message.type === "exit") {
        this.ended = true;
        store("id", this.key, null);
        this.setState(`ended (exit code ${message.exitCode})`);
      } else if (message.type === "notice") {
        this.term.write(`\r\n\x1b[2m[hangar] ${message.message}\x1b[0m\r\n`);
      } else if (message.type === "error") {
        this.failed = true;
        this.setState(message.message);
        if (message.code === "terminal_not_found" || message.code === "terminal_context_mismatch") store("id", this.key, null);
      }
      this.showButtons();
    }

    send(frame) {
      if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
    }

    refit() {
      if (this.term && !this.host.hidden && this.host.clientWidth > 0) this.fit.fit();
    }

    end() {
      this.send({ type: "close" });
      this.ended = true;
      store("id", this.key, null);
      this.setState("ended");
    }

    restart() {
      if (this.ws) this.ws.close();
      this.ws = null;
      this.terminalId = null;
      this.received = 0;
      this.ended = false;
      this.failed = false;
      this.term.reset();
      this.connect();
    }

    setState(text) {
      this.state = text;
      if (shown === this) render();
    }

    showButtons() {
      if (shown === this) render();
    }
  }

  function render() {
    const ctx = hangarTools.current();
    toggle.disabled = !ctx || !ctx.workspacePath;
    const open = Boolean(shown && shown.panelOpen);
    toggle.setAttribute("aria-pressed", String(open));
    panel.hidden = !open;
    for (const s of sessions.values()) s.host.hidden = !(open && s === shown);
    if (!open) return;
    $("terminal-off").hidden = enabled;
    $("terminal-off").textContent = enabled ? "" : "Terminal off: " + (pane.dataset.terminalReason || "not allowed on this hub");
    $("terminal-cwd").textContent = shown.cwd;
    $("terminal-state").textContent = shown.state;
    const live = Boolean(shown.ws);
    $("terminal-end").hidden = !enabled || !live || shown.ended;
    $("terminal-new").hidden = !enabled || !(shown.ended || shown.failed);
    $("terminal-reconnect").hidden = !enabled || live || shown.ended || shown.failed || !shown.term;
    requestAnimationFrame(() => shown && shown.refit());
  }

  function sessionFor(ctx) {
    const key = hangarTools.key(ctx);
    let session = sessions.get(key);
    if (!session) { session = new TerminalSession(ctx); sessions.set(key, session); }
    session.ctx = ctx;
    if (!session.term) session.cwd = ctx.workspacePath;
    return session;
  }

  function setOpen(session, open) {
    session.panelOpen = open;
    store("panel", session.key, open ? "open" : null);
    if (open && enabled) session.start();
    render();
    if (open && session.term) session.term.focus();
  }

  hangarTools.onChange((ctx) => {
    shown = ctx && ctx.workspacePath ? sessionFor(ctx) : null;
    if (shown && shown.panelOpen && enabled) shown.start();
    render();
  });
  toggle.addEventListener("click", () => { if (shown) setOpen(shown, !shown.panelOpen); });
  $("terminal-hide").addEventListener("click", () => { if (shown) setOpen(shown, false); });
  $("terminal-end").addEventListener("click", () => shown && shown.end());
  $("terminal-new").addEventListener("click", () => shown && shown.restart());
  $("terminal-reconnect").addEventListener("click", () => shown && shown.connect());
  new ResizeObserver(() => shown && shown.refit()).observe(hosts);
  render();

  // xterm.js styles its rows with <style> elements it creates; a strict Content-Security-Policy
  // (style-src 'self') blocks those. Their text is copied into constructed style sheets, which
  // the policy allows, for every <style> the browser did not apply.
  function mirrorBlockedStyles() {
    if (!("adoptedStyleSheets" in document)) return;
    const sheets = new Map();
    const mirror = (style) => {
      if (style.sheet && !sheets.has(style)) return; // applied by the browser itself
      let sheet = sheets.get(style);
      if (!sheet) {
        sheet = new CSSStyleSheet();
        sheets.set(style, sheet);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      }
      try { sheet.replaceSync(style.textContent || ""); } catch (_) { /* not CSS */ }
    };
    const forget = (style) => {
      const sheet = sheets.get(style);
      if (!sheet) return;
      sheets.delete(style);
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
    };
    new MutationObserver((records) => {
      for (const r of records) {
        for (const node of r.addedNodes) {
          if (node.nodeName === "STYLE") mirror(node);
          else if (node.querySelectorAll) node.querySelectorAll("style").forEach(mirror);
        }
        for (const node of r.removedNodes) if (node.nodeName === "STYLE") forget(node);
        const owner = r.target.nodeName === "STYLE" ? r.target : r.target.parentNode;
        if (owner && owner.nodeName === "STYLE" && owner.isConnected) mirror(owner);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  }
})();
