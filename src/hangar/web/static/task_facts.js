// The task header's copy buttons: the agent's resume command and the task's link.
"use strict";
(() => {
  const slot = document.getElementById("task-facts");
  if (!slot) return;
  async function copy(button, text) {
    try {
      await navigator.clipboard.writeText(text);
      const label = button.textContent;
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = label; }, 1500);
    } catch (err) {
      hangar.status("Copying failed: " + err.message);
    }
  }
  slot.addEventListener("click", (event) => {
    const button = event.target.closest("button.copy");
    if (!button) return;
    copy(button, button.hasAttribute("data-copy-link") ? location.href : button.dataset.copy);
  });
})();
