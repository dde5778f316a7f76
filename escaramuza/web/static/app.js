// escaramuza GM page: submit forms in the background and swap in the page the server
// draws, and follow a running playtest. Every form also works without this script.
(function () {
  "use strict";

  // While a request runs (a search takes seconds) every button of the page is
  // disabled and further submits are ignored: an Apply clicked during a search would
  // act on a page about to be replaced.
  var busy = false;

  function setBusy(text) {
    busy = Boolean(text);
    document.body.classList.toggle("busy", busy);
    var el = document.getElementById("busy");
    if (el) { el.textContent = text || ""; }
    document.querySelectorAll("#app button, #app input[type=submit], #app input[type=checkbox]").forEach(function (b) {
      if (busy && !b.disabled) {
        b.disabled = true;
        b.dataset.busy = "1";
      } else if (!busy && b.dataset.busy) {
        b.disabled = false;
        delete b.dataset.busy;
      }
    });
  }

  function swap(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById("app");
    var old = document.getElementById("app");
    if (fresh && old) {
      old.replaceWith(document.importNode(fresh, true));
      document.title = doc.title;
    }
    follow();
  }

  // While a change the autopilot may follow runs (apply, edit, the toggle), the busy
  // line follows it: who decides, how many decisions it played, for how long.
  var AUTO_FORMS = ["apply-form", "edit-form", "auto-form", "auto-continue-form"];
  var autoTimer = null;

  async function followAutopilot() {
    autoTimer = null;
    try {
      var response = await fetch("/api/autopilot", { credentials: "same-origin" });
      var auto = await response.json();
      if (busy && auto.running && auto.deciding) {
        var app = document.getElementById("app");
        setBusy(app.dataset.autoProgress.replace("{name}", auto.deciding)
          .replace("{n}", auto.done).replace("{s}", auto.seconds));
      }
    } catch (err) { /* the busy line stays as it was */ }
    if (busy) { autoTimer = setTimeout(followAutopilot, 400); }
  }

  async function submit(event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || form.method.toLowerCase() !== "post") { return; }
    event.preventDefault();
    if (busy) { return; }
    var data = new FormData(form, event.submitter || undefined);
    var app = document.getElementById("app");
    setBusy(form.id === "suggest-form" ? app.dataset.searching : app.dataset.working);
    var autopilot = AUTO_FORMS.indexOf(form.id) >= 0 &&
      (app.dataset.autopilot === "1" || data.get("enabled") === "on");
    if (autopilot) { autoTimer = setTimeout(followAutopilot, 400); }
    try {
      var response = await fetch(form.action, { method: "POST", body: data, credentials: "same-origin" });
      swap(await response.text());
    } catch (err) {
      alert(document.getElementById("app").dataset.noAnswer + " " + err);
    } finally {
      if (autoTimer !== null) { clearTimeout(autoTimer); autoTimer = null; }
      setBusy("");
    }
  }

  var timer = null;

  async function poll() {
    timer = null;
    try {
      var response = await fetch("/api/playtest", { credentials: "same-origin" });
      var job = await response.json();
      if (job.status === "running") {
        var bar = document.getElementById("pt-progress");
        var count = document.getElementById("pt-count");
        if (bar) { bar.value = job.done; bar.max = job.total; }
        if (count) { count.textContent = job.done + "/" + job.total; }
        timer = setTimeout(poll, 400);
      } else {
        var page = await fetch("/", { credentials: "same-origin" });
        swap(await page.text());
      }
    } catch (err) {
      timer = setTimeout(poll, 2000);
    }
  }

  // The log's newest lines are at its end: show them, as a terminal does.
  function scrollLog() {
    var log = document.querySelector("#log pre");
    if (log) { log.scrollTop = log.scrollHeight; }
  }

  function follow() {
    scrollLog();
    var panel = document.getElementById("playtest");
    if (panel && panel.dataset.status === "running" && timer === null) {
      timer = setTimeout(poll, 400);
    }
  }

  document.addEventListener("submit", submit);
  document.addEventListener("DOMContentLoaded", follow);
})();
