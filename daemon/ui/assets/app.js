// The IHMT page: five screens over the daemon's API (POST /api/{method}).
//
// Every piece of memory text reaches the document as a text node (h and
// append below, textContent): nothing here parses a string as HTML, so a
// memory that reads like markup is shown as what it says.
"use strict";
(() => {
  const W = window.IHMT_WORDS;
  const SCREENS = ["explore", "diagnose", "timeline", "review", "audit"];
  const SCOPES = { default: "SEARCH_SCOPE_DEFAULT_UNSPECIFIED", project: "SEARCH_SCOPE_PROJECT", global: "SEARCH_SCOPE_GLOBAL", all: "SEARCH_SCOPE_ALL" };
  let lang = pickLang();
  let screen = "explore";
  let status = null; // the page's last UIService.Status
  const $ = (id) => document.getElementById(id);

  // ---- words ------------------------------------------------------------
  function pickLang() {
    const saved = localStorage.getItem("ihmt-lang");
    if (saved && W[saved]) return saved;
    return (navigator.language || "en").toLowerCase().startsWith("es") ? "es" : "en";
  }
  function t(key, vars) {
    let s = (W[lang] && W[lang][key]) || W.en[key] || key;
    if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
    return s;
  }
  function applyWords() {
    document.documentElement.lang = lang;
    for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    for (const el of document.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
    for (const el of document.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
    for (const b of document.querySelectorAll(".lang button")) b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
    for (const sel of document.querySelectorAll("select.scope")) {
      const v = sel.value || "default";
      sel.replaceChildren(...Object.keys(SCOPES).map((k) => h("option", { value: k }, t("scope-" + k))));
      sel.value = v;
    }
    projectLine();
  }
  // said is a text the daemon wrote (a verdict's message, a notice, a reason
  // for review) in the page's language: i18n.js holds, as data, the
  // daemon's sentences with {placeholders} and their translations; a
  // sentence it does not know is shown as the daemon wrote it.
  function said(text) {
    if (!text || lang === "en") return text;
    return translateServer(String(text), (window.IHMT_SERVER || {})[lang] || [], 0);
  }
  const serverRules = new Map();
  function translateServer(text, rules, depth) {
    for (const [pattern, out] of rules) {
      let rule = serverRules.get(pattern);
      if (!rule) {
        const names = [];
        const src = pattern.split(/(\{\w+\})/).map((part) => {
          const m = part.match(/^\{(\w+)\}$/);
          if (m) { names.push(m[1]); return "(.+?)"; }
          return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        }).join("");
        rule = { re: new RegExp("^" + src + "$", "s"), names };
        serverRules.set(pattern, rule);
      }
      const m = text.match(rule.re);
      if (!m) continue;
      const vars = {};
      // Only a place or a reason is the daemon's own words again; a value
      // or a memory's text is the person's, shown as written.
      rule.names.forEach((n, i) => { vars[n] = (n === "where" || n === "why") && depth < 3 ? translateServer(m[i + 1], rules, depth + 1) : m[i + 1]; });
      return out.replace(/\{(\w+)\}/g, (x, k) => (k in vars ? vars[k] : x));
    }
    return text;
  }
  function setLang(l) {
    lang = l;
    localStorage.setItem("ihmt-lang", l);
    applyWords();
    rerender();
  }

  // ---- building the document --------------------------------------------
  // h builds an element; strings and numbers among the children become text.
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    append(el, kids);
    return el;
  }
  // treePath shows where an answer sits: the branches' titles, a title a
  // layer repeats once, each cut short; the whole path on hover.
  function treePath(path) {
    const titles = (path || []).filter((s, i, a) => i === 0 || s !== a[i - 1]);
    return h("span", { title: titles.join(" › ") }, titles.map((s) => excerpt(s, 48)).join(" › "));
  }
  function append(el, kids) {
    for (const k of kids.flat(Infinity)) {
      if (k == null || k === false) continue;
      el.append(k instanceof Node ? k : document.createTextNode(String(k)));
    }
    return el;
  }
  function nowrap(text) { return h("span", { class: "nowrap" }, text); }
  function chip(text, cls) { return h("span", { class: "chip " + (cls || "") }, text); }
  function num(v) { return Number(v || 0); }
  function word(v, prefix) { return String(v || "").replace(prefix, "").toLowerCase(); }
  // when renders a time as the command line does (client.FormatTime): the
  // date alone at midnight UTC — how a date without a time is stored —
  // else the date and the minute in UTC. One format on every screen and in
  // both languages, so a date reads the same here and at the terminal.
  function when(ts) {
    if (!ts) return "—";
    const d = new Date(ts);
    if (isNaN(d)) return String(ts);
    const iso = d.toISOString(); // 2026-12-07T18:29:39.000Z
    return iso.slice(11, 23) === "00:00:00.000" ? iso.slice(0, 10) : iso.slice(0, 10) + " " + iso.slice(11, 16) + " UTC";
  }
  // day is a time's date alone, for the timeline's axis.
  function day(ms) { return new Date(ms).toISOString().slice(0, 10); }
  function fmtDuration(sec) {
    sec = num(sec);
    const d = Math.floor(sec / 86400), hr = Math.floor((sec % 86400) / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
    if (d) return `${d} d ${hr} h`;
    if (hr) return `${hr} h ${m} min`;
    if (m) return `${m} min ${s} s`;
    return `${s} s`;
  }
  function excerpt(s, n) {
    s = String(s || "").replace(/\s+/g, " ").trim();
    return s.length > n ? s.slice(0, n - 1) + "…" : s;
  }
  function scopeOf(sel) { return SCOPES[$(sel).value] || SCOPES.default; }
  function trustChip(m) { const w = word(m.trust, "TRUST_"); return chip(t("trust-" + w), "trust-" + w); }
  // successors maps a memory's id to the memories that supersede it, as
  // the daemon's one model of what is current says: explicit corrections
  // (a memory's corrected_by), a fact's newer value and a probable
  // successor (Conflicts). The outline's OUTDATED chip and Diagnose's
  // "Corrected by" read it.
  let successors = new Map(), probableOf = new Set();
  async function loadSuccessors() {
    const r = await api("Conflicts", { scope: SCOPES.all });
    const next = new Map(), probable = new Set();
    const add = (from, to) => { if (!from || !to || from === to) return; if (!next.has(from)) next.set(from, []); if (!next.get(from).includes(to)) next.get(from).push(to); };
    for (const x of r.supersessions || []) add((x.old || {}).memory_id, (x.new || {}).memory_id);
    for (const p of r.probable || []) { add((p.old || {}).id, (p.new || {}).id); if (p.old) probable.add(p.old.id + ">" + (p.new || {}).id); }
    successors = next;
    probableOf = probable;
  }
  function correctedBy(m) {
    const out = [...(m.corrected_by || [])];
    for (const id of successors.get(m.id) || []) if (!out.includes(id)) out.push(id);
    return out;
  }
  // outdatedWord is "outdated", or "probably outdated" when every successor
  // is only a probable one.
  function outdatedWord(m) {
    const by = correctedBy(m);
    if (!by.length) return "";
    const sure = (m.corrected_by || []).length || by.some((id) => !probableOf.has(m.id + ">" + id));
    return sure ? t("outdated") : t("probably-outdated");
  }
  function memoryChips(m) {
    const out = [trustChip(m)];
    const old = outdatedWord(m);
    if (old) out.push(chip(old, "warn outdated"));
    if (m.tombstone) out.push(chip(m.tombstone.purged_at ? t("purged") : t("forgotten"), "bad"));
    return out;
  }
  function memoryButton(id, label, scope) {
    return h("button", { type: "button", class: "link", onclick: () => openMemory(id, scope) }, label || id);
  }
  function table(head, rows, cls) {
    return h("div", { class: "table-wrap" }, h("table", { class: cls || "" },
      h("thead", {}, h("tr", {}, head.map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => h("td", { "data-label": typeof head[i] === "string" ? head[i] : "" }, c)))))));
  }
  function dl(pairs) {
    return h("dl", { class: "fields" }, pairs.filter((p) => p && p[1] != null && p[1] !== "").map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  }

  // ---- talking to the daemon --------------------------------------------
  async function api(method, body) {
    let r;
    try {
      r = await fetch("/api/" + method, {
        method: "POST", credentials: "same-origin", cache: "no-store",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}),
      });
    } catch (e) {
      throw new Error(t("offline"));
    }
    const text = await r.text();
    let data;
    try { data = JSON.parse(text); } catch (e) { data = { error: text.trim() }; }
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  }
  let noticeTimer = 0;
  function notice(msg, kind) {
    const n = $("notice");
    n.textContent = msg;
    n.className = "notice " + (kind || "ok");
    n.hidden = false;
    clearTimeout(noticeTimer);
    if (kind !== "bad") noticeTimer = setTimeout(() => { n.hidden = true; }, 7000);
  }
  function failed(err) { notice(t("error", { msg: err.message }), "bad"); }
  async function guarded(el, f) {
    el.replaceChildren(h("p", { class: "loading" }, t("loading")));
    try { await f(); } catch (e) { el.replaceChildren(h("p", { class: "error" }, t("error", { msg: e.message }))); }
  }

  // ask shows the confirmation dialog; it resolves to the input's value
  // (or "" without one) when confirmed, to null when cancelled.
  function ask({ title, text, input, ok }) {
    const d = $("confirm");
    $("confirm-title").textContent = title;
    $("confirm-text").textContent = text;
    $("confirm-ok").textContent = ok;
    const inp = $("confirm-input");
    $("confirm-input-label").hidden = !input;
    $("confirm-input-name").textContent = input || "";
    inp.value = "";
    inp.required = !!input;
    return new Promise((resolve) => {
      d.addEventListener("close", () => resolve(d.returnValue === "ok" ? inp.value.trim() : null), { once: true });
      d.returnValue = "";
      d.showModal();
      (input ? inp : $("confirm-ok")).focus();
    });
  }

  // ---- screens ----------------------------------------------------------
  function show(name, focus) {
    if (!SCREENS.includes(name)) name = "explore";
    screen = name;
    for (const s of SCREENS) {
      $(s).hidden = s !== name;
      const tab = $("tab-" + s);
      tab.setAttribute("aria-selected", String(s === name));
      tab.tabIndex = s === name ? 0 : -1;
    }
    if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
    if (focus) $("tab-" + name).focus();
    load(name);
  }
  function load(name) {
    if (name === "explore") loadTree();
    if (name === "timeline") loadTimeline();
    if (name === "review") loadReview();
    if (name === "audit") loadAudit();
  }
  function rerender() {
    load(screen);
    if (screen === "diagnose" && lastSearch) renderSearch(lastSearch);
    if (openId) openMemory(openId, openScope, true);
  }

  // ---- Explore ----------------------------------------------------------
  const expanded = new Set();
  const meta = new Map(); // memory id → Memory, for the outline's details
  let tree = [];
  async function loadTree() {
    const out = $("outline");
    try {
      const [resp] = await Promise.all([api("Tree", { depth: 0, scope: scopeOf("explore-scope") }), loadSuccessors().catch(() => {})]);
      tree = nest(resp.nodes || []);
      const st = resp.stats || {};
      $("explore-summary").textContent = !st.ready ? t("tree-not-ready") :
        t("tree-summary", { leaves: num(st.leaves), branches: num(st.branches), layers: num(st.layers), pending: num(st.pending) });
      renderTree();
    } catch (e) {
      out.replaceChildren(h("li", { class: "error" }, t("error", { msg: e.message })));
    }
  }
  // nest turns the depth-first outline into children lists.
  function nest(nodes) {
    const roots = [], stack = [];
    for (const n of nodes) {
      n.kids = [];
      const d = n.depth || 0;
      stack.length = d;
      (d === 0 ? roots : (stack[d - 1] || { kids: roots }).kids).push(n);
      stack[d] = n;
    }
    return roots;
  }
  function renderTree() {
    const out = $("outline");
    const filter = $("explore-filter").value.trim().toLowerCase();
    const keep = (n) => !filter || (n.title || "").toLowerCase().includes(filter) || n.kids.some(keep);
    const groups = new Map();
    for (const n of tree.filter(keep)) {
      if (!groups.has(n.group)) groups.set(n.group, []);
      groups.get(n.group).push(n);
    }
    if (!groups.size) {
      out.replaceChildren(h("li", { class: "empty" }, tree.length ? t("no-match") : t("tree-empty")));
      return;
    }
    out.replaceChildren(...[...groups].map(([g, nodes]) => {
      const [scope, domain] = String(g || "").split("|");
      return h("li", { class: "group", role: "none" },
        h("div", { class: "group-name" }, chip(scope || "—", "scope"), " ", domain || ""),
        h("ul", { role: "group" }, nodes.map((n) => treeItem(n, keep, filter))));
    }));
  }
  function treeItem(n, keep, filter) {
    if (num(n.layer) === 0) {
      const metaEl = h("span", { class: "meta", "data-meta": n.id });
      fillMeta(n.id, metaEl);
      return h("li", { role: "treeitem", class: "leaf" + (openId === n.id ? " open" : "") },
        h("button", { type: "button", class: "tree-btn", "data-id": n.id, onclick: () => openMemory(n.id, scopeOf("explore-scope")) },
          h("span", { class: "dot", "aria-hidden": "true" }), h("span", { class: "title" }, n.title || n.id)),
        metaEl);
    }
    const open = expanded.has(n.id) || !!filter;
    const li = h("li", { role: "treeitem", "aria-expanded": String(open), class: "branch" },
      h("button", { type: "button", class: "tree-btn", "data-branch": n.id, onclick: () => { open ? expanded.delete(n.id) : expanded.add(n.id); renderTree(); focusTree("[data-branch='" + n.id + "']"); } },
        h("span", { class: "twisty", "aria-hidden": "true" }, open ? "▾" : "▸"), h("span", { class: "title" }, n.title || n.id)),
      h("span", { class: "meta" }, chip(t("items", { n: num(n.children) })), " ", chip(t("layer", { n: num(n.layer) }), "muted"),
        num(n.gone) ? [" ", chip(t("forgotten-n", { n: num(n.gone) }), "bad")] : null));
    if (open) li.append(h("ul", { role: "group" }, n.kids.filter(keep).map((k) => treeItem(k, keep, filter))));
    return li;
  }
  function focusTree(sel) { const b = $("outline").querySelector(sel); if (b) b.focus(); }
  // fillMeta shows a memory's date, agent, trust and notices beside its
  // title, from Get (a few at a time, cached).
  const metaQueue = [];
  let metaBusy = 0;
  function fillMeta(id, el) {
    if (meta.has(id)) { renderMeta(meta.get(id), el); return; }
    metaQueue.push(id);
    pumpMeta();
  }
  function pumpMeta() {
    while (metaBusy < 6 && metaQueue.length) {
      const id = metaQueue.shift();
      if (meta.has(id)) { updateMeta(id); continue; }
      metaBusy++;
      api("Get", { id, scope: scopeOf("explore-scope") })
        .then((r) => { meta.set(id, r.memory); updateMeta(id); })
        .catch(() => {})
        .finally(() => { metaBusy--; pumpMeta(); });
    }
  }
  function updateMeta(id) {
    for (const el of document.querySelectorAll("[data-meta]")) if (el.dataset.meta === id) renderMeta(meta.get(id), el);
  }
  function renderMeta(m, el) {
    if (!m) return;
    el.replaceChildren(h("time", {}, when(m.valid_from)), " · ", (m.agent || {}).name || "—", " ", ...memoryChips(m));
  }
  function treeKeys(e) {
    const btns = [...$("outline").querySelectorAll(".tree-btn")];
    const i = btns.indexOf(document.activeElement);
    if (i < 0) return;
    const b = btns[i];
    let next = null;
    if (e.key === "ArrowDown") next = btns[i + 1];
    else if (e.key === "ArrowUp") next = btns[i - 1];
    else if (e.key === "Home") next = btns[0];
    else if (e.key === "End") next = btns[btns.length - 1];
    else if ((e.key === "ArrowRight" && b.dataset.branch && !expanded.has(b.dataset.branch)) ||
      (e.key === "ArrowLeft" && b.dataset.branch && expanded.has(b.dataset.branch))) { b.click(); e.preventDefault(); return; }
    else return;
    e.preventDefault();
    if (next) next.focus();
  }

  // ---- a memory's page --------------------------------------------------
  let openId = "", openScope = SCOPES.default;
  async function openMemory(id, scope, quiet) {
    openId = id;
    openScope = scope || SCOPES.default;
    if (screen !== "explore") show("explore");
    for (const li of $("outline").querySelectorAll(".leaf")) li.classList.toggle("open", li.querySelector("[data-id]").dataset.id === id);
    const art = $("memory");
    await guarded(art, async () => {
      const got = await api("Get", { id, scope: openScope });
      const m = got.memory;
      meta.set(id, m);
      art.replaceChildren(...memoryPage(m, got));
      entries(m, art);
      if (!quiet) art.querySelector("h2").focus();
    });
  }
  function memoryPage(m, got) {
    const src = m.source && m.source.parts ? t("source-part", { name: m.source.name || "—", part: m.source.part, parts: m.source.parts, type: m.source.type }) : "";
    const scope = word(m.scope, "SCOPE_");
    const out = [
      h("div", { class: "memory-head" }, h("h2", { tabindex: "-1" }, m.title || excerpt(m.content, 60) || m.id), h("div", { class: "chips" }, memoryChips(m))),
      h("pre", { class: "content" }, m.content),
    ];
    if (m.tombstone) {
      const tb = m.tombstone;
      out.push(h("p", { class: "callout bad" }, t("tombstone", { when: when(tb.forgotten_at), by: (tb.by || {}).name || "—", reason: tb.reason || "—" }),
        tb.purged_at ? [" ", t("purged-on", { when: when(tb.purged_at) })] : null));
    }
    out.push(h("div", { class: "actions" }, memoryActions(m)));
    out.push(h("h3", {}, t("header")), dl([
      [t("id"), h("code", {}, m.id)], [t("valid-from"), when(m.valid_from)], [t("recorded-at"), when(m.recorded_at)],
      [t("scope-label"), scope], [t("project"), m.project], [t("origin-project"), m.origin_project],
      [t("agent"), [(m.agent || {}).name, " ", (m.agent || {}).version]], [t("session"), m.session_id],
      [t("trust"), t("trust-" + word(m.trust, "TRUST_"))], [t("status"), m.status], [t("review-note"), said(m.review_note)],
      [t("domain"), m.domain], [t("tags"), (m.tags || []).join(", ")], [t("source"), src], [t("checksum"), h("code", {}, m.checksum)],
    ]));
    const corrects = m.corrects || [], by = correctedBy(m);
    out.push(h("h3", {}, t("links")));
    if (!corrects.length && !by.length && !((got || {}).probable || []).length) out.push(h("p", { class: "hint" }, t("no-links")));
    if (corrects.length) out.push(h("p", {}, h("strong", {}, t("corrects"), ": "), corrects.map((id) => [memoryButton(id, null, openScope), " "])));
    if (by.length) out.push(h("p", {}, h("strong", {}, t("corrected-by"), ": "), by.map((id) => [memoryButton(id, null, openScope), " "])));
    // The one model of what is current, and every inferred link either way,
    // with Confirm (a correction) and Undo (not a version of it).
    const cur = (got || {}).currency;
    if (cur && m.status === "active") {
      out.push(h("p", { class: "currency", "data-current": String(!!cur.current) }, h("strong", {}, t("currency"), ": "), cur.current ? chip(t("current"), "good") :
        [chip(t("superseded"), "warn"), " ", t("currency-by", { how: t("how-" + cur.how), certainty: Number(cur.certainty).toFixed(2) }), " ", memoryButton(cur.superseded_by, null, openScope)]));
    }
    const inferred = (got || {}).probable || [];
    if (inferred.length) out.push(h("h3", {}, t("inferred-links")), h("div", { class: "cards" }, inferred.map((p) => probableCard(p, openScope))));
    out.push(h("h3", {}, t("audit-entries")), h("div", { class: "entries" }, h("p", { class: "loading" }, t("loading"))));
    return out;
  }
  function memoryActions(m) {
    if (!m.tombstone) return h("button", { type: "button", class: "danger", onclick: () => forget(m) }, t("forget"));
    if (m.tombstone.purged_at) return null;
    return [h("button", { type: "button", onclick: () => restore(m) }, t("restore")), " ",
      h("button", { type: "button", class: "danger", onclick: () => purge(m) }, t("purge"))];
  }
  async function entries(m, art) {
    const box = art.querySelector(".entries");
    const wordScope = Object.keys(SCOPES).find((k) => SCOPES[k] === openScope) || "default";
    try {
      const r = await api("MemoryLog", { id: m.id, scope: wordScope });
      const rows = (r.entries || []).map((e) => [nowrap(when(e.time)), chip(e.op), nowrap((e.agent || {}).name || "—"), e.summary]);
      box.replaceChildren(rows.length ? table([t("when"), t("op"), t("agent"), t("summary")], rows) : h("p", { class: "hint" }, t("no-entries")));
    } catch (e) {
      box.replaceChildren(h("p", { class: "error" }, t("error", { msg: e.message })));
    }
  }
  async function forget(m) {
    const reason = await ask({ title: t("forget-title"), text: t("forget-text"), input: t("forget-reason"), ok: t("forget-ok") });
    if (reason == null) return;
    try { await api("Forget", { id: m.id, reason }); notice(t("forget-done")); afterChange(m.id); } catch (e) { failed(e); }
  }
  async function restore(m) {
    try { await api("Restore", { id: m.id }); notice(t("restore-done")); afterChange(m.id); } catch (e) { failed(e); }
  }
  async function purge(m) {
    if ((await ask({ title: t("purge-title"), text: t("purge-text"), ok: t("purge-ok") })) == null) return;
    try {
      const r = await api("Purge", { id: m.id });
      notice(t("purge-done", { bytes: num(r.leaf_bytes), entries: num(r.log_entries) }));
      afterChange(m.id);
    } catch (e) { failed(e); }
  }
  function afterChange(id) {
    meta.delete(id);
    loadTree();
    openMemory(id, openScope, true);
    refreshCount();
  }

  // ---- Diagnose ---------------------------------------------------------
  let lastSearch = null;
  async function search(e) {
    e.preventDefault();
    const body = {
      query: $("q").value, clue: $("q-clue").value, scope: scopeOf("q-scope"),
      as_of: $("q-asof").value, known_at: $("q-knownat").value, limit: Number($("q-limit").value) || 10, explain: true,
    };
    const out = $("search-out");
    await guarded(out, async () => {
      const [r] = await Promise.all([api("Search", body), loadSuccessors().catch(() => {})]);
      lastSearch = { r, scope: body.scope, query: body.query };
      renderSearch(lastSearch);
    });
  }
  // asWritten maps the stems a search names (its terms, the words of its
  // message) to the query's words they start — as client.AsWritten does
  // for the command line: people see "kubernetes", not "kubernet".
  function asWritten(query, terms) {
    const words = String(query || "").split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    const out = new Map();
    for (const t of terms) {
      let best = "", bestLen = 0;
      for (const w of words) {
        const a = [...w.toLowerCase()], b = [...t];
        let n = 0;
        while (n < a.length && n < b.length && a[n] === b[n]) n++;
        if (n > bestLen && n >= 3 && n >= b.length - 1) { best = w; bestLen = n; }
      }
      if (best && best.toLowerCase() !== t) out.set(t, best);
    }
    return out;
  }
  function unstem(text, written) {
    return String(text || "").replace(/[\p{L}\p{N}]+/gu, (w) => written.get(w) || w);
  }
  function renderSearch({ r, scope, query }) {
    const st = word(r.status, "SEARCH_STATUS_");
    const results = r.results || [];
    const cov = r.coverage || {};
    const conf = Number(r.confidence || 0);
    const bar = h("div", { class: "meter" }, h("div", { class: "fill" }));
    bar.firstChild.style.width = Math.round(conf * 100) + "%";
    const written = asWritten(query, r.terms || []);
    const why = [h("p", {}, said(unstem(r.message, written))), h("p", { class: "terms" }, h("strong", {}, t("terms"), ": "), (r.terms || []).map((x) => [chip(written.get(x) || x), " "]))];
    if (results.length > 1) {
      const s1 = Number(results[0].score), s2 = Number(results[1].score);
      why.push(h("p", {}, h("strong", {}, t("margin"), ": "), `${s1.toFixed(2)} − ${s2.toFixed(2)} = ${(s1 - s2).toFixed(2)}`, s1 > 0 ? ` (${Math.round(((s1 - s2) / s1) * 100)} %)` : ""));
    }
    const verdict = h("div", { class: "verdict-card" },
      h("div", { class: "verdict " + st, "data-verdict": st }, h("span", { class: "label" }, t("verdict")), h("span", { class: "value" }, t(st))),
      h("div", { class: "confidence" }, h("span", { class: "label" }, t("confidence")), h("span", { class: "value" }, conf.toFixed(2)), bar),
      h("div", { class: "coverage" }, h("span", { class: "label" }, t("coverage")),
        chip(cov.exhaustive ? t("exhaustive") : t("not-exhaustive"), cov.exhaustive ? "good" : "warn"),
        h("p", {}, t("coverage-line", { scored: num(cov.leaves_scored), visible: num(cov.leaves_visible), nodes: num(cov.nodes_read), how: cov.via_tree ? t("via-tree") : t("via-index") })),
        h("p", { class: "hint" }, said(r.scope_description))));
    const parts = [verdict, h("section", { class: "why" }, h("h2", {}, t("why")), why)];
    const cands = r.candidates || [];
    if (cands.length) {
      parts.push(h("section", {}, h("h2", {}, t("candidates")), h("p", { class: "hint" }, st === "ambiguous" ? t("candidates-ambiguous") : t("candidates-near")),
        table([t("score"), t("text"), t("valid-from")], cands.map((c) => [Number(c.score).toFixed(2), memoryButton(c.id, c.excerpt, scope), nowrap(when(c.valid_from))]))));
    }
    if (results.length) {
      const top = Math.max(...results.map((x) => Number(x.score)), 1e-9);
      parts.push(h("section", {}, h("h2", {}, t("ranking")), table(
        [t("rank"), t("score"), t("text"), t("valid-from"), t("agent"), t("status"), t("notices"), t("corrected-by"), t("tree-path")],
        results.map((x, i) => {
          const m = x.memory || {};
          const sb = h("div", { class: "scorebar" }, h("div", { class: "fill" }));
          sb.firstChild.style.width = Math.round((Number(x.score) / top) * 100) + "%";
          return [String(i + 1), [Number(x.score).toFixed(3), sb], memoryButton(m.id, excerpt(m.content, 160), scope), nowrap(when(m.valid_from)),
            (m.agent || {}).name || "—", [chip(x.current ? t("current") : t("superseded"), x.current ? "good" : "warn"), " ", trustChip(m)],
            (x.notices || []).map((n) => h("div", { class: "notice-line" }, said(n))),
            correctedBy(m).map((id) => [memoryButton(id, null, scope), " "]), treePath(x.tree_path)];
        }), "ranking")));
    }
    if (r.trace) parts.push(traceSection(r.trace, written, scope));
    $("search-out").replaceChildren(...parts);
  }
  // traceSection shows how the search reached its answer: the rewrite, each
  // ranked memory's BM25 score and the signals that moved it, the verdict's
  // deciding case and its evidence (the daemon's trace).
  function traceSection(tr, written, scope) {
    const factor = (f) => Number(f.value) ? `${f.signal} ×${Number(f.value).toFixed(2)}` : `${f.signal}: ${f.note}`;
    return h("section", { class: "trace", id: "trace" }, h("h2", {}, t("trace")),
      (tr.rewrites || []).length ? h("p", {}, h("strong", {}, t("trace-rewrites"), ": "), (tr.rewrites || []).map((w) => [chip(unstem(w, written)), " "])) : null,
      table([t("rank"), t("text"), t("trace-base"), t("score"), t("trace-factors"), t("status")], (tr.ranked || []).map((x, i) => [
        String(i + 1), memoryButton(x.id, null, scope), Number(x.base).toFixed(3), Number(x.score).toFixed(3),
        (x.factors || []).map((f) => h("div", {}, factor(f))), chip(x.current ? t("current") : t("superseded"), x.current ? "good" : "warn"),
      ]), "trace-ranking"),
      h("p", { class: "decided", "data-decided": tr.decided }, h("strong", {}, t("trace-decided"), ": "), tr.decided),
      h("p", {}, h("strong", {}, t("trace-evidence"), ": "), (tr.evidence || []).map((e) => [chip(e), " "])));
  }

  // ---- Timeline ---------------------------------------------------------
  const MAX_LINES = 60;
  async function loadTimeline() {
    const scope = scopeOf("timeline-scope"), known = $("timeline-knownat").value;
    guarded($("timeline-out"), async () => {
      const facts = (await api("Facts", { subject: $("timeline-subject").value, known_at: known, scope })).facts || [];
      const seen = new Map();
      for (const f of facts) seen.set(f.subject + "\u0000" + f.attribute, f);
      // One timeline per attribute: the first MAX_LINES, a subject narrows.
      const all = [...seen.values()];
      const lines = await Promise.all(all.slice(0, MAX_LINES).map(async (f) => ({
        f, values: (await api("Timeline", { subject: f.subject, attribute: f.attribute, scope, known_at: known })).facts || [],
      })));
      renderTimeline(lines, scope);
      if (all.length > MAX_LINES) $("timeline-out").prepend(h("p", { class: "hint" }, t("timeline-more", { shown: MAX_LINES, all: all.length })));
    });
    guarded($("probable-out"), async () => renderConflicts(await api("Conflicts", { scope }), scope));
  }
  function renderTimeline(lines, scope) {
    const out = $("timeline-out");
    if (!lines.length) { out.replaceChildren(h("p", { class: "empty" }, t("no-facts"))); return; }
    const now = Date.now();
    const starts = lines.flatMap((l) => l.values.map((v) => Date.parse(v.valid_from))).filter((x) => !isNaN(x));
    const lo = Math.min(...starts, now), hi = now, span = Math.max(hi - lo, 864e5);
    const pos = (x) => ((x - lo) / span) * 100;
    // As many dates on the axis as fit without touching: one per 7.5em
    // of width, at least the two ends.
    const em = parseFloat(getComputedStyle(out).fontSize) || 15;
    const fit = Math.max(2, Math.min(5, Math.floor((out.clientWidth || 800) / (7.5 * em))));
    const axis = h("div", { class: "axis" }, Array.from({ length: fit }, (_, i) => i / (fit - 1)).map((q) => {
      const tick = h("span", {}, day(lo + q * span));
      tick.style.left = q * 100 + "%";
      return tick;
    }));
    const rows = lines.map(({ f, values }) => {
      const track = h("div", { class: "track" });
      for (const v of values) {
        const a = Date.parse(v.valid_from), b = v.valid_to ? Date.parse(v.valid_to) : now;
        const seg = h("button", {
          type: "button", class: "seg " + (v.current ? "current" : "superseded"), onclick: () => openMemory(v.memory_id, scope),
          title: `${v.value} — ${t("valid-from")}: ${when(v.valid_from)} · ${t("valid-to")}: ${when(v.valid_to)} · ${t("recorded-at")}: ${when(v.recorded_at)} · ${t("superseded-at")}: ${when(v.superseded_at)}`,
        }, v.value);
        // A value that became true lately is a sliver of the span: it is
        // drawn at least wide enough to read (6em), kept inside the track.
        seg.style.width = `max(${pos(b) - pos(a)}%, 6em)`;
        seg.style.left = `min(${pos(a)}%, calc(100% - max(${pos(b) - pos(a)}%, 6em)))`;
        track.append(seg);
      }
      const detail = table([t("text"), t("valid-from"), t("valid-to"), t("recorded-at"), t("superseded-at"), ""],
        values.map((v) => [h("span", { class: v.current ? "val-current" : "val-old" }, v.value), when(v.valid_from), when(v.valid_to),
          when(v.recorded_at), when(v.superseded_at), memoryButton(v.memory_id, t("open"), scope)]), "compact");
      return h("div", { class: "fact-row" },
        h("div", { class: "fact-name" }, h("strong", {}, f.subject), " · ", f.attribute, " ", chip(f.scope, "scope")),
        track, h("details", {}, h("summary", {}, t("values-n", { n: values.length })), detail));
    });
    out.replaceChildren(h("div", { class: "timeline" }, axis, rows));
  }
  function renderConflicts(resp, scope) {
    const probable = resp.probable || [];
    $("probable-out").replaceChildren(probable.length ? h("div", { class: "cards" }, probable.map((p) => probableCard(p, scope))) : h("p", { class: "empty" }, t("no-probable")));
    const sups = resp.supersessions || [];
    $("conflicts-out").replaceChildren(sups.length ? table([t("subject"), t("older"), "", t("newer"), t("superseded-at")], sups.map((s) => [
      [h("strong", {}, s.old.subject), " · ", s.old.attribute],
      [h("span", { class: "val-old" }, s.old.value), h("div", { class: "hint" }, when(s.old.valid_from))], t("replaced-by"),
      [h("span", { class: "val-current" }, s.new.value), h("div", { class: "hint" }, when(s.new.valid_from))], when(s.old.superseded_at),
    ])) : h("p", { class: "empty" }, t("no-conflicts")));
  }
  function probableCard(p, scope) {
    const side = (label, m) => h("div", { class: "side" }, h("div", { class: "label" }, label, " · ", when(m.valid_from)),
      h("p", { class: "text" }, excerpt(m.content, 280)), memoryButton(m.id, t("open"), scope));
    const card = h("div", { class: "card probable" },
      h("div", { class: "pair" }, side(t("older"), p.old), h("div", { class: "arrow", "aria-hidden": "true" }, "→"), side(t("newer"), p.new)),
      h("p", {}, h("strong", {}, t("confidence"), ": "), Number(p.confidence).toFixed(2), " · ", h("strong", {}, t("about"), ": "), (() => { const w = asWritten((p.old || {}).content + " " + (p.new || {}).content, p.about || []); return (p.about || []).map((a) => [chip(w.get(a) || a), " "]); })()),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "primary confirm", onclick: () => decideLink(card, "MarkOutdated", p) }, t("confirm")),
        h("button", { type: "button", class: "undo", onclick: () => decideLink(card, "Unlink", p) }, t("undo"))));
    return card;
  }
  async function decideLink(card, method, p) {
    try {
      const r = await api(method, { old_id: p.old.id, new_id: p.new.id });
      const msg = method === "Unlink" ? t("undo-done") : r.pending_review ? t("confirm-pending") : t("confirm-done");
      card.replaceChildren(h("p", { class: "done" }, msg));
      notice(msg);
      refreshCount();
    } catch (e) { failed(e); }
  }

  // ---- Review -----------------------------------------------------------
  async function loadReview() {
    const out = $("review-out");
    guarded(out, async () => {
      const ms = (await api("ListReview", { limit: 100 })).memories || [];
      setCount(ms.length);
      out.replaceChildren(ms.length ? h("div", { class: "cards" }, ms.map(reviewCard)) : h("p", { class: "empty" }, t("no-review")));
    });
  }
  function reviewCard(m) {
    const note = h("textarea", { rows: "2", "aria-label": t("note"), placeholder: t("note") });
    const card = h("article", { class: "card review-card", "data-id": m.id },
      h("div", { class: "card-head" }, h("strong", {}, (m.agent || {}).name || "—"), " ", h("span", { class: "hint" }, (m.agent || {}).version),
        " · ", chip(m.project || word(m.scope, "SCOPE_"), "scope"), " · ", h("time", {}, when(m.recorded_at))),
      h("pre", { class: "content" }, m.content),
      m.review_note ? h("p", { class: "reason" }, h("strong", {}, t("reason"), ": "), said(m.review_note)) : null,
      h("label", { class: "note" }, h("span", {}, t("note")), note),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "primary", onclick: () => decide(card, m, "REVIEW_DECISION_APPROVE", note.value) }, t("approve")),
        h("button", { type: "button", class: "danger", onclick: () => decide(card, m, "REVIEW_DECISION_REJECT", note.value) }, t("reject")),
        memoryButton(m.id, t("open"), SCOPES.all)));
    return card;
  }
  async function decide(card, m, decision, note) {
    try {
      await api("Review", { id: m.id, decision, note });
      const msg = decision === "REVIEW_DECISION_APPROVE" ? t("approved") : t("rejected");
      card.replaceChildren(h("p", { class: "done" }, msg, " ", h("span", { class: "hint" }, excerpt(m.content, 80))));
      card.classList.add("decided");
      notice(msg);
      meta.delete(m.id);
      refreshCount();
    } catch (e) { failed(e); }
  }
  function setCount(n) {
    const c = $("review-count");
    c.textContent = String(n);
    c.hidden = !n;
  }
  function refreshCount() { api("Stats", {}).then((s) => setCount(num(s.pending_review))).catch(() => {}); }

  // ---- Audit and health -------------------------------------------------
  async function loadAudit() {
    const out = $("audit-out");
    guarded(out, async () => {
      const [audit, stats, st, log] = await Promise.all([api("VerifyAudit", {}), api("Stats", {}), api("Status", {}),
        api("Log", { limit: 1000, scope: scopeOf("audit-scope") })]);
      status = st;
      setCount(num(stats.pending_review));
      out.replaceChildren(h("div", { class: "grid" }, chainCard(audit), storeCard(stats), daemonCard(stats, st)), activity(log.entries || []));
    });
  }
  function chainCard(a) {
    const probs = a.problems || [];
    return h("div", { class: "card" }, h("h2", {}, t("chain")),
      h("p", { class: a.ok ? "big good" : "big bad" }, a.ok ? t("chain-ok", { entries: num(a.entries) }) : t("chain-bad", { n: probs.length })),
      num(a.unchained) ? h("p", { class: "hint" }, t("chain-unchained", { n: num(a.unchained) })) : null,
      (a.damaged_lines || []).length ? h("p", { class: "hint" }, t("chain-damaged", { n: a.damaged_lines.length })) : null,
      probs.length ? table([t("line"), t("kind"), t("detail")], probs.map((p) => [num(p.line), p.kind, p.detail])) : null,
      h("p", { class: "hint" }, h("code", {}, a.path)));
  }
  function storeCard(s) {
    const tr = s.tree || {};
    return h("div", { class: "card" }, h("h2", {}, t("store")), dl([
      [t("memories"), num(s.memories)], [t("global-memories"), num(s.global_memories)], [t("project-memories"), num(s.project_memories)],
      [t("projects"), num(s.projects)], [t("pending"), num(s.pending_review)], [t("forgotten-count"), num(s.forgotten)],
      [t("facts"), num(s.facts)], [t("log-entries"), num(s.log_entries)],
      [t("outline"), t("tree-summary", { leaves: num(tr.leaves), branches: num(tr.branches), layers: num(tr.layers), pending: num(tr.pending) })],
    ]));
  }
  function daemonCard(s, st) {
    const idle = num(st.idle_exit_seconds);
    return h("div", { class: "card" }, h("h2", {}, t("daemon")), dl([
      [t("version"), s.version], [t("uptime"), fmtDuration(st.uptime_seconds)], [t("pid"), num(s.pid)],
      [t("idle-exit"), idle ? t("idle-exit-on", { d: fmtDuration(idle) }) : t("idle-exit-off")],
      [t("store-path"), h("code", {}, s.store_path)], [t("socket"), h("code", {}, s.socket_path)],
    ]));
  }
  function activity(entries) {
    if (!entries.length) return h("section", {}, h("h2", {}, t("activity")), h("p", { class: "empty" }, t("no-activity")));
    const by = new Map();
    for (const e of entries) {
      const name = (e.agent || {}).name || "—";
      const a = by.get(name) || { n: 0, ops: new Map(), last: "" };
      a.n++;
      a.ops.set(e.op, (a.ops.get(e.op) || 0) + 1);
      if (!a.last || e.time > a.last) a.last = e.time;
      by.set(name, a);
    }
    const rows = [...by].sort((x, y) => (x[1].last < y[1].last ? 1 : -1)).map(([name, a]) =>
      [h("strong", {}, name), a.n, [...a.ops].map(([op, n]) => [chip(op + " " + n), " "]), when(a.last)]);
    const recent = entries.slice(-15).reverse().map((e) => [nowrap(when(e.time)), chip(e.op), nowrap((e.agent || {}).name || "—"), e.project || "—", e.summary]);
    return h("section", {}, h("h2", {}, t("activity")), table([t("agent"), t("entries"), t("op"), t("last")], rows),
      h("h2", {}, t("recent")), table([t("when"), t("op"), t("agent"), t("project"), t("summary")], recent));
  }

  // ---- the page's life --------------------------------------------------
  function projectLine() {
    const p = status && status.project;
    $("project-line").textContent = status ? (p ? t("project-line", { project: p }) : t("no-project")) : "";
  }
  // heartbeat asks for the page's status at least every third of the
  // daemon's idle exit: the daemon counts each request as a call, so it
  // does not exit while the page is open.
  let beat = 0;
  function heartbeat() {
    const idle = num(status && status.idle_exit_seconds) * 1000;
    const every = idle ? Math.min(Math.max(idle / 3, 1000), 60000) : 60000;
    clearInterval(beat);
    beat = setInterval(() => api("Status", {}).then((s) => { status = s; }).catch((e) => notice(e.message, "bad")), every);
  }
  async function start() {
    applyWords();
    for (const b of document.querySelectorAll(".lang button")) b.addEventListener("click", () => setLang(b.dataset.lang));
    const tabs = SCREENS.map((s) => $("tab-" + s));
    tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => show(tab.dataset.screen));
      tab.addEventListener("keydown", (e) => {
        const j = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
        if (j === undefined) return;
        e.preventDefault();
        show(SCREENS[(j + tabs.length) % tabs.length], true);
      });
    });
    $("outline").addEventListener("keydown", treeKeys);
    $("explore-scope").addEventListener("change", () => { meta.clear(); loadTree(); });
    $("explore-filter").addEventListener("input", renderTree);
    $("explore-expand").addEventListener("click", () => { const all = (ns) => ns.forEach((n) => { if (num(n.layer)) { expanded.add(n.id); all(n.kids); } }); all(tree); renderTree(); });
    $("explore-collapse").addEventListener("click", () => { expanded.clear(); renderTree(); });
    $("search-form").addEventListener("submit", search);
    for (const id of ["timeline-scope", "timeline-knownat"]) $(id).addEventListener("change", loadTimeline);
    let typing = 0;
    $("timeline-subject").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(loadTimeline, 300); });
    $("review-refresh").addEventListener("click", loadReview);
    $("audit-refresh").addEventListener("click", loadAudit);
    $("audit-scope").addEventListener("change", loadAudit);
    window.addEventListener("hashchange", () => show(location.hash.slice(1)));
    try { status = await api("Status", {}); } catch (e) { notice(e.message, "bad"); }
    projectLine();
    heartbeat();
    refreshCount();
    show(location.hash.slice(1) || "explore");
  }
  start();
})();
