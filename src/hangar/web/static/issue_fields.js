// The issue page's status and assignee menus save in place (PATCH /api/issues/KEY); a refused
// change puts the menu back and says why.
"use strict";
(() => {
  const main = document.getElementById("issue");
  const saved = document.getElementById("issue-saved");
  if (!main || !saved) return;
  const key = main.dataset.issueKey;
  document.querySelectorAll("select.in-place").forEach((select) => {
    let value = select.value;
    select.addEventListener("change", async () => {
      saved.textContent = "Saving…";
      try {
        await hangar.api("/api/issues/" + encodeURIComponent(key), { [select.dataset.field]: select.value || null }, "PATCH");
        value = select.value;
        saved.textContent = "Saved.";
      } catch (err) {
        select.value = value;
        saved.textContent = "Not saved: " + err.message;
      }
    });
  });
})();
