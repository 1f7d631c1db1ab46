// The evaluation form keeps a reviewer's work. Every change is kept in
// this browser at once and saved on the server as a draft a moment later;
// answers the server did not get (the session ended, the network dropped)
// come back on the form when the page is opened again, and are saved then.
(function () {
  const form = document.getElementById("evaluation-form");
  if (!form) return;
  const key = form.dataset.key;
  const status = document.getElementById("draft-status");
  if (form.dataset.open !== "true") {
    localStorage.removeItem(key); // submitted: nothing left to keep
    return;
  }
  // answers are the form's fields as name → values, in the form's order.
  const answers = () => {
    const out = {};
    for (const el of form.elements) {
      if (!el.name || el.name === "csrf" || el.type === "submit") continue;
      if (el.type === "radio" || el.type === "checkbox") {
        if (el.checked) (out[el.name] ||= []).push(el.value);
      } else {
        out[el.name] = [el.value];
      }
    }
    return JSON.stringify(out);
  };
  const restore = (saved) => {
    const values = JSON.parse(saved);
    for (const el of form.elements) {
      if (!el.name || el.name === "csrf" || el.type === "submit") continue;
      if (el.type === "radio" || el.type === "checkbox") {
        el.checked = (values[el.name] || []).includes(el.value);
      } else if (values[el.name]) {
        el.value = values[el.name][0];
      }
    }
  };
  const say = (text, link) => {
    status.textContent = text;
    if (link) {
      const a = document.createElement("a");
      a.href = link.href;
      a.textContent = link.text;
      status.append(" ", a);
    }
  };
  const time = (at) => new Date(at).toLocaleTimeString();

  let timer;
  let restored = ""; // the sentence of answers brought back, kept in view
  const save = async () => {
    const sent = answers();
    let response;
    try {
      response = await fetch(form.dataset.draft, {method: "POST", body: new URLSearchParams(new FormData(form)), credentials: "same-origin"});
    } catch (e) {
      say("Not saved on the server (no connection); your answers are kept in this browser.");
      return;
    }
    if (response.status === 204) {
      if (sent === answers()) localStorage.removeItem(key);
      // A draft saved: the evaluation is in progress, and a refusal shown
      // earlier is about answers since changed.
      document.getElementById("evaluation-status").textContent = "In progress";
      document.querySelectorAll(".beside-form p.error").forEach(p => p.remove());
      say(restored + "Draft saved at " + time(Date.now()) + ".");
    } else if (response.status === 401) {
      say("Your session has ended; your answers are kept in this browser.",
        {href: "/console/sign-in?ended=1&next=" + encodeURIComponent(location.pathname), text: "Sign in again to go on."});
    } else {
      say(await response.text());
    }
  };
  const changed = () => {
    localStorage.setItem(key, JSON.stringify({at: Date.now(), answers: answers()}));
    clearTimeout(timer);
    timer = setTimeout(save, 600);
  };
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  form.addEventListener("submit", () => {
    clearTimeout(timer);
    localStorage.setItem(key, JSON.stringify({at: Date.now(), answers: answers()}));
  });

  const kept = JSON.parse(localStorage.getItem(key) || "null");
  if (kept && kept.answers !== answers()) {
    restore(kept.answers);
    restored = "Restored the answers you gave at " + time(kept.at) + " that the server had not saved. ";
    say(restored + "Saving them now.");
    save();
  } else {
    localStorage.removeItem(key);
  }
})();
