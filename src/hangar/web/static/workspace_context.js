// The workspace tool context: which device and directory the tools beside a task work in.
//
// The open task decides it (runtime.js announces `hangar:task` with the task's own
// workspacePath from the runtime-work list or its transcript page, RW-248/249); a project
// chosen without a task uses the project's own root (RW-257). Tools never compose a path
// or pick another device: they take the context as it is (RW-253/254).
"use strict";
const hangarTools = (() => {
  let current = null, task = null;
  const listeners = [];

  // One key per context: a task's tools are never reused for another task (RW-255).
  function keyOf(ctx) {
    if (!ctx) return "";
    return ctx.localTaskId ? `${ctx.deviceId}|task:${ctx.localTaskId}` : `${ctx.deviceId}|dir:${ctx.workspacePath}`;
  }

  function set(ctx) {
    const before = current;
    current = ctx && ctx.deviceId ? ctx : null;
    if (keyOf(before) === keyOf(current) && (before?.workspacePath || "") === (current?.workspacePath || "")) return;
    for (const fn of listeners) fn(current, before);
  }

  document.addEventListener("hangar:task", (event) => {
    const d = event.detail || {};
    const known = current && keyOf(current) === keyOf({ deviceId: d.deviceId, localTaskId: d.localTaskId });
    const same = task && task.deviceId === d.deviceId && task.localTaskId === d.localTaskId;
    task = {
      deviceId: d.deviceId, localTaskId: d.localTaskId || null,
      // A page announced before its first transcript page may not know the path yet.
      workspacePath: d.workspacePath || (same ? task.workspacePath : "") || (known ? current.workspacePath : ""),
      projectPath: d.projectPath || (same ? task.projectPath : ""),
    };
    set(task);
  });

  return {
    current: () => current,
    task: () => task, // the open task, even while a project's own context is chosen
    key: keyOf,
    onChange: (fn) => listeners.push(fn),
    openProject: (deviceId, path) => set({ deviceId, localTaskId: null, workspacePath: path, projectPath: path }),
  };
})();
