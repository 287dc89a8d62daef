/**
 * `GET /admin`: one self-contained page (inline CSS and vanilla JS, no build step, no external assets) over the
 * admin JSON API. It holds no data itself: the admin enters ADMIN_TOKEN once, the page keeps it in sessionStorage
 * and sends it as `Authorization: Bearer` on every `/api` call. Every value from the API goes into the DOM through
 * textContent (never innerHTML), and ids stay strings; JSON is parsed so that integers beyond 2^53 in payloads keep
 * their digits.
 *
 * Kept as a TS string so `tsc` output needs no asset copying. `String.raw` keeps the script's backslashes as
 * written; the script uses no template literals, and `__CSP_NONCE__` is replaced per request.
 */

const NONCE_PLACEHOLDER = '__CSP_NONCE__';

const PAGE = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>crm-sync admin</title>
<link rel="icon" href="data:,">
<style nonce="__CSP_NONCE__">
:root {
  --bg: #f5f6f8; --panel: #fff; --text: #1d2330; --muted: #5f6b7a; --line: #dfe3e8; --accent: #2456d6;
  --accent-soft: #e8eefc; --danger: #c0262d; --danger-soft: #fde8e8; --ok: #17803d; --ok-soft: #e3f5e9;
  --warn: #9a5b00; --warn-soft: #fff2d6; --info: #1d5fb8; --info-soft: #e2edfb; --grey: #56606c; --grey-soft: #eceef1;
}
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--text); background: var(--bg); }
[hidden] { display: none !important; }
button, input, select { font: inherit; color: inherit; }
button { cursor: pointer; border: 1px solid var(--line); background: var(--panel); border-radius: 6px; padding: 5px 12px; }
button:hover:not(:disabled) { border-color: #b8c0cc; background: #f9fafb; }
button:disabled { cursor: default; opacity: .55; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.primary:hover:not(:disabled) { background: #1c47b5; }
button.danger { border-color: var(--danger); color: var(--danger); }
button.danger:hover:not(:disabled) { background: var(--danger-soft); }
button.link { border: 0; background: none; color: var(--accent); padding: 0 4px; }
input, select { border: 1px solid var(--line); border-radius: 6px; padding: 5px 8px; background: #fff; }
input:focus, select:focus, button:focus-visible, tr.row:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }

#login { max-width: 420px; margin: 12vh auto 0; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 28px 32px; box-shadow: 0 2px 12px rgba(20,30,50,.06); }
#login h1 { font-size: 20px; margin: 0 0 4px; }
#login p { margin: 0 0 18px; color: var(--muted); }
#login label { display: block; font-weight: 600; margin-bottom: 6px; }
#login .row { display: flex; gap: 8px; }
#login input { flex: 1; }
#login-message { margin-top: 14px; padding: 8px 10px; border-radius: 6px; background: var(--danger-soft); color: var(--danger); }

header.top { display: flex; align-items: center; gap: 16px; padding: 10px 24px; background: var(--panel); border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 2; }
header.top h1 { font-size: 17px; margin: 0; white-space: nowrap; }
header.top h1 span { color: var(--muted); font-weight: 400; }
.counters { display: flex; gap: 8px; }
.counter { border-radius: 999px; padding: 3px 12px; font-weight: 600; border: 1px solid transparent; }
.counter.failed { background: var(--danger-soft); color: var(--danger); }
.counter.failed.zero { background: var(--grey-soft); color: var(--grey); }
.counter.queued { background: var(--grey-soft); color: var(--grey); }
.spacer { flex: 1; }
.toolbar { display: flex; align-items: center; gap: 10px; }
.toggle { display: inline-flex; align-items: center; gap: 6px; color: var(--muted); white-space: nowrap; cursor: pointer; }
.updated { color: var(--muted); font-size: 12.5px; white-space: nowrap; }

main { padding: 16px 24px 40px; max-width: 1600px; margin: 0 auto; }
.notice { display: flex; align-items: flex-start; gap: 10px; margin-bottom: 12px; padding: 9px 12px; border-radius: 8px; border: 1px solid; }
.notice.ok { background: var(--ok-soft); color: var(--ok); border-color: #b9e2c6; }
.notice.error { background: var(--danger-soft); color: var(--danger); border-color: #f3c0c0; }
.notice.info { background: var(--info-soft); color: var(--info); border-color: #bcd3f3; }
.notice span { flex: 1; white-space: pre-wrap; word-break: break-word; }
.notice button { border: 0; background: none; color: inherit; padding: 0 4px; font-size: 16px; line-height: 1; }

.tabs { display: flex; gap: 4px; border-bottom: 1px solid var(--line); margin-bottom: 14px; }
.tabs button { border: 0; border-bottom: 2px solid transparent; border-radius: 0; background: none; padding: 8px 14px; color: var(--muted); font-weight: 600; }
.tabs button[aria-selected="true"] { color: var(--accent); border-bottom-color: var(--accent); }

form.filters { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 12px; margin-bottom: 12px; }
form.filters label { display: flex; flex-direction: column; gap: 3px; font-size: 12px; color: var(--muted); font-weight: 600; }
form.filters input.project { width: 200px; }
form.filters input.kind { width: 160px; }
form.filters .actions { display: flex; gap: 6px; }
form.filters .grow { flex: 1; }

.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: baseline; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); background: #fafbfc; font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.nowrap { white-space: nowrap; }
td.err { color: var(--danger); max-width: 300px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
td.err.wrap { white-space: pre-wrap; word-break: break-word; max-width: 420px; }
td .sub { display: block; color: var(--muted); font-size: 12.5px; }
td.empty { text-align: center; color: var(--muted); padding: 28px; }
tr.row { cursor: pointer; }
tr.row:hover td { background: #f7f9fc; }
tr.row.selected td { background: var(--accent-soft); }
tr.detail > td { background: #fbfcfe; padding: 14px 18px 18px; border-bottom: 2px solid var(--accent); }
.muted { color: var(--muted); }

.badge { display: inline-block; border-radius: 999px; padding: 1px 9px; font-size: 12px; font-weight: 600; white-space: nowrap; border: 1px solid transparent; }
.s-queued { background: var(--grey-soft); color: var(--grey); border-color: #d5d9df; }
.s-running { background: var(--info-soft); color: var(--info); border-color: #bcd3f3; }
.s-succeeded, .s-associated { background: var(--ok-soft); color: var(--ok); border-color: #b9e2c6; }
.s-failed { background: var(--danger-soft); color: var(--danger); border-color: #f3c0c0; }
.s-skipped { background: #f1eefb; color: #5b4a9c; border-color: #d9d1f2; }
.s-pending { background: var(--warn-soft); color: var(--warn); border-color: #f1d9a6; }
.s-unknown { background: var(--grey-soft); color: var(--grey); }

.detail-head { display: flex; align-items: center; gap: 12px; margin-bottom: 10px; }
.detail-head h2 { font-size: 15px; margin: 0; }
.detail-grid { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 8px 20px; margin: 0 0 12px; }
.detail-grid div { min-width: 0; }
.detail-grid dt { font-size: 11.5px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); font-weight: 600; }
.detail-grid dd { margin: 0; word-break: break-word; }
.detail-grid dd .sub { display: block; color: var(--muted); font-size: 12px; }
.detail-section h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); margin: 12px 0 4px; }
.detail-section pre { margin: 0; padding: 10px 12px; background: #f3f5f8; border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; word-break: break-word; max-height: 360px; overflow: auto; }
.detail-section pre.error { background: var(--danger-soft); border-color: #f3c0c0; color: #8e1a20; }
.more { display: flex; justify-content: center; align-items: center; gap: 12px; padding: 12px; color: var(--muted); }
</style>
</head>
<body>

<section id="login" hidden>
  <h1>crm-sync admin</h1>
  <p>Sync log and mappings. Enter the daemon's admin token (<code>ADMIN_TOKEN</code>); it is kept in this tab only.</p>
  <form id="login-form" method="post" autocomplete="off">
    <label for="token-input">Admin token</label>
    <div class="row">
      <input id="token-input" type="password" autocomplete="off" spellcheck="false" required>
      <button id="login-button" class="primary" type="submit">Sign in</button>
    </div>
  </form>
  <div id="login-message" role="alert" hidden></div>
</section>

<div id="app" hidden>
  <header class="top">
    <h1>crm-sync <span>admin</span></h1>
    <div class="counters" title="Sync log entries by status">
      <button type="button" id="count-failed" class="counter failed" title="Show failed entries">Failed: …</button>
      <button type="button" id="count-queued" class="counter queued" title="Show queued entries">Queued: …</button>
    </div>
    <div class="spacer"></div>
    <div class="toolbar">
      <span id="updated" class="updated"></span>
      <label class="toggle"><input type="checkbox" id="auto-refresh"> Auto-refresh (10 s)</label>
      <button type="button" id="refresh-button">Refresh</button>
      <button type="button" id="reconcile-button" title="POST /api/reconcile">Reconcile now</button>
      <button type="button" id="logout-button" class="link">Sign out</button>
    </div>
  </header>

  <main>
    <div id="notice" class="notice" role="status" aria-live="polite" hidden><span id="notice-text"></span><button type="button" id="notice-close" aria-label="Dismiss">×</button></div>

    <nav class="tabs" role="tablist">
      <button type="button" role="tab" id="tab-logs" aria-controls="panel-logs" aria-selected="true">Sync log</button>
      <button type="button" role="tab" id="tab-mappings" aria-controls="panel-mappings" aria-selected="false">Mappings</button>
    </nav>

    <section id="panel-logs" role="tabpanel" aria-labelledby="tab-logs">
      <form id="log-filters" class="filters">
        <label>Status
          <select id="log-status">
            <option value="">any</option>
            <option value="queued">queued</option>
            <option value="running">running</option>
            <option value="succeeded">succeeded</option>
            <option value="failed">failed</option>
            <option value="skipped">skipped</option>
          </select>
        </label>
        <label>Kind
          <input id="log-kind" class="kind" list="kinds" placeholder="any" spellcheck="false">
          <datalist id="kinds">
            <option value="associate"></option><option value="push_drawings"></option><option value="push_proposal_pdf"></option>
            <option value="push_line_items"></option><option value="set_status"></option><option value="attach_pdf"></option>
            <option value="add_note"></option><option value="reconcile"></option>
          </datalist>
        </label>
        <label>Project id
          <input id="log-project" class="project" inputmode="numeric" placeholder="any" spellcheck="false">
        </label>
        <label>Since (local time)
          <input id="log-since" type="datetime-local" step="1">
        </label>
        <div class="actions">
          <button type="submit" class="primary" id="log-apply">Apply</button>
          <button type="button" id="log-clear">Clear</button>
        </div>
      </form>
      <div class="card">
        <table id="log-table">
          <thead><tr>
            <th>ID</th><th>Time</th><th>Kind</th><th>Trigger</th><th>CRM / target</th><th>Project</th><th>Status</th>
            <th class="num">Attempts</th><th class="num">Duration</th><th>Error</th>
          </tr></thead>
          <tbody id="log-rows"></tbody>
        </table>
        <div class="more"><span id="log-count"></span><button type="button" id="log-more" hidden>Load more</button></div>
      </div>
    </section>

    <section id="panel-mappings" role="tabpanel" aria-labelledby="tab-mappings" hidden>
      <form id="map-filters" class="filters">
        <label>CRM
          <select id="map-crm">
            <option value="">any</option>
            <option value="appointment">appointment</option>
            <option value="record">record</option>
          </select>
        </label>
        <label>Status
          <select id="map-status">
            <option value="">any</option>
            <option value="pending">pending</option>
            <option value="associated">associated</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <label>Project id
          <input id="map-project" class="project" inputmode="numeric" placeholder="any" spellcheck="false">
        </label>
        <div class="actions">
          <button type="submit" class="primary" id="map-apply">Apply</button>
          <button type="button" id="map-clear">Clear</button>
        </div>
        <div class="grow"></div>
        <button type="button" id="associate-button" title="POST /api/mappings/associate">Associate pending now</button>
      </form>
      <div class="card">
        <table id="map-table">
          <thead><tr>
            <th>ID</th><th>CRM</th><th>Appointment / record</th><th>Project</th><th>Status</th><th>Error</th><th>Created</th><th>Updated</th>
          </tr></thead>
          <tbody id="map-rows"></tbody>
        </table>
        <div class="more"><span id="map-count"></span><button type="button" id="map-more" hidden>Load more</button></div>
      </div>
    </section>
  </main>
</div>

<noscript><p>This page needs JavaScript.</p></noscript>

<script nonce="__CSP_NONCE__">
(function () {
  'use strict';

  var TOKEN_KEY = 'crm-sync.admin-token';
  var AUTO_KEY = 'crm-sync.auto-refresh';
  var PAGE_SIZE = 50;
  var MAX_LIMIT = 500;
  var COUNT_LIMIT = 100;
  var REFRESH_MS = 10000;
  var LOG_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'skipped'];
  var MAP_STATUSES = ['pending', 'associated', 'failed'];

  var state = {
    signedIn: false,
    tab: 'logs',
    timer: null,
    logs: { items: [], next: null, query: {}, loading: false, selected: null, fetched: null, gen: 0 },
    maps: { items: [], next: null, query: {}, loading: false, gen: 0 }
  };

  function $(id) { return document.getElementById(id); }

  /** Builds an element; text always goes in through textContent. */
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  // ---- JSON that keeps big integers (ids in payloads) digit for digit ----

  function BigNum(raw) { this.raw = raw; }
  BigNum.prototype.toString = function () { return this.raw; };

  function parseJson(text) {
    var i = 0;
    var NUM = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    function fail() { throw new SyntaxError('invalid JSON at position ' + i); }
    function ws() { while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++; }
    function str() {
      var start = i++;
      while (i < text.length) {
        var ch = text[i];
        if (ch === '\\') i += 2;
        else if (ch === '"') { i++; return JSON.parse(text.slice(start, i)); }
        else i++;
      }
      return fail();
    }
    function value() {
      ws();
      var c = text[i];
      if (c === '{') {
        i++;
        var obj = {};
        ws();
        if (text[i] === '}') { i++; return obj; }
        for (;;) {
          ws();
          if (text[i] !== '"') fail();
          var key = str();
          ws();
          if (text[i] !== ':') fail();
          i++;
          Object.defineProperty(obj, key, { value: value(), enumerable: true, writable: true, configurable: true });
          ws();
          if (text[i] === ',') { i++; continue; }
          if (text[i] === '}') { i++; return obj; }
          fail();
        }
      }
      if (c === '[') {
        i++;
        var arr = [];
        ws();
        if (text[i] === ']') { i++; return arr; }
        for (;;) {
          arr.push(value());
          ws();
          if (text[i] === ',') { i++; continue; }
          if (text[i] === ']') { i++; return arr; }
          fail();
        }
      }
      if (c === '"') return str();
      if (text.startsWith('true', i)) { i += 4; return true; }
      if (text.startsWith('false', i)) { i += 5; return false; }
      if (text.startsWith('null', i)) { i += 4; return null; }
      NUM.lastIndex = i;
      var m = NUM.exec(text);
      if (!m) fail();
      i = NUM.lastIndex;
      var n = Number(m[0]);
      return /^-?\d+$/.test(m[0]) && !Number.isSafeInteger(n) ? new BigNum(m[0]) : n;
    }
    var result = value();
    ws();
    if (i !== text.length) fail();
    return result;
  }

  function pretty(v, indent) {
    indent = indent || '';
    if (v instanceof BigNum) return v.raw;
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    var inner = indent + '  ';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return '[\n' + v.map(function (x) { return inner + pretty(x, inner); }).join(',\n') + '\n' + indent + ']';
    }
    var keys = Object.keys(v);
    if (keys.length === 0) return '{}';
    return '{\n' + keys.map(function (k) { return inner + JSON.stringify(k) + ': ' + pretty(v[k], inner); }).join(',\n') + '\n' + indent + '}';
  }

  function show(v) {
    if (v === null || v === undefined || v === '') return '—';
    if (v instanceof BigNum) return v.raw;
    return String(v);
  }

  function pad(n) { return n < 10 ? '0' + n : String(n); }

  function fmtTime(iso) {
    if (!iso) return '—';
    var d = new Date(iso);
    if (isNaN(d.getTime())) return String(iso);
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }

  function fmtDuration(ms) {
    if (ms === null || ms === undefined || ms === '') return '—';
    var n = Number(ms);
    if (!isFinite(n)) return String(ms);
    if (n < 1000) return Math.round(n) + ' ms';
    if (n < 60000) return (n / 1000).toFixed(n < 10000 ? 2 : 1) + ' s';
    var s = Math.round(n / 1000);
    return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  }

  function badge(status, known) {
    var cls = known.indexOf(status) >= 0 ? 's-' + status : 's-unknown';
    return el('span', 'badge ' + cls, show(status));
  }

  function td(text, className, title) {
    var cell = el('td', className, text);
    if (title) cell.title = title;
    return cell;
  }

  function timeCell(iso) { return td(fmtTime(iso), 'nowrap', iso || ''); }

  // ---- notices ----

  var noticeTimer = null;
  function notify(kind, text) {
    var box = $('notice');
    box.className = 'notice ' + kind;
    $('notice-text').textContent = text;
    box.hidden = false;
    clearTimeout(noticeTimer);
    if (kind !== 'error') noticeTimer = setTimeout(function () { box.hidden = true; }, 8000);
  }
  function clearNotice() { $('notice').hidden = true; clearTimeout(noticeTimer); }

  // ---- the API ----

  function AuthError() { this.name = 'AuthError'; this.message = 'the admin token was refused'; }
  AuthError.prototype = Object.create(Error.prototype);

  function ApiError(status, message, data) { this.name = 'ApiError'; this.status = status; this.message = message; this.data = data; }
  ApiError.prototype = Object.create(Error.prototype);

  function messageOf(data) {
    if (!data || typeof data !== 'object') return '';
    var m = data.message;
    if (Array.isArray(m)) return m.map(show).join('; ');
    return m === undefined || m === null ? '' : show(m);
  }

  function api(method, path, body) {
    var token = sessionStorage.getItem(TOKEN_KEY);
    if (!token) { signOut(''); return Promise.reject(new AuthError()); }
    var headers = { 'Authorization': 'Bearer ' + token, 'Accept': 'application/json' };
    var init = { method: method, headers: headers, cache: 'no-store', credentials: 'omit', redirect: 'error' };
    if (body !== undefined) { headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch(path, init).then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        if (text) {
          try { data = parseJson(text); } catch (e) { data = { message: text.slice(0, 300) }; }
        }
        if (res.status === 401) {
          // Parallel calls come back 401 together: only the first one (whose token is still the stored one) says so.
          if (sessionStorage.getItem(TOKEN_KEY) !== token) throw new AuthError();
          signOut(state.signedIn
            ? 'The daemon no longer accepts your admin token (401). Enter it again.'
            : 'That token was refused (401 Unauthorized). Check ADMIN_TOKEN and try again.');
          throw new AuthError();
        }
        if (!res.ok) throw new ApiError(res.status, messageOf(data) || ('HTTP ' + res.status), data);
        return data;
      });
    }, function (err) {
      throw new ApiError(0, 'cannot reach the daemon (' + (err && err.message ? err.message : 'network error') + ')', null);
    });
  }

  function query(params) {
    var parts = [];
    Object.keys(params).forEach(function (k) {
      var v = params[k];
      if (v !== undefined && v !== null && v !== '') parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(v));
    });
    return parts.length ? '?' + parts.join('&') : '';
  }

  function failed(what) {
    return function (err) {
      if (err instanceof AuthError) return;
      notify('error', what + ': ' + (err && err.message ? err.message : String(err)));
    };
  }

  // ---- sign in / out ----

  function showLogin(message) {
    $('app').hidden = true;
    $('login').hidden = false;
    var msg = $('login-message');
    msg.textContent = message || '';
    msg.hidden = !message;
    $('login-button').disabled = false;
    $('token-input').focus();
  }

  function signOut(message) {
    sessionStorage.removeItem(TOKEN_KEY);
    state.signedIn = false;
    stopTimer();
    showLogin(message);
  }

  function enterApp() {
    state.signedIn = true;
    $('login').hidden = true;
    $('app').hidden = false;
    $('auto-refresh').checked = sessionStorage.getItem(AUTO_KEY) === 'on';
    applyAuto();
    refreshAll();
  }

  $('login-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var input = $('token-input');
    var token = input.value.trim();
    if (!token) { showLogin('Enter the admin token.'); return; }
    sessionStorage.setItem(TOKEN_KEY, token);
    input.value = '';
    $('login-button').disabled = true;
    $('login-message').hidden = true;
    state.signedIn = false;
    api('GET', '/api/sync-logs?limit=1').then(enterApp, function (err) {
      if (err instanceof AuthError) return;
      sessionStorage.removeItem(TOKEN_KEY);
      showLogin('Could not check the token: ' + err.message);
    });
  });

  $('logout-button').addEventListener('click', function () { clearNotice(); signOut(''); });

  // ---- tabs, refresh ----

  function selectTab(tab) {
    state.tab = tab;
    $('tab-logs').setAttribute('aria-selected', String(tab === 'logs'));
    $('tab-mappings').setAttribute('aria-selected', String(tab === 'mappings'));
    $('panel-logs').hidden = tab !== 'logs';
    $('panel-mappings').hidden = tab !== 'mappings';
    if (tab === 'logs') loadLogs(false); else loadMaps(false);
  }
  $('tab-logs').addEventListener('click', function () { selectTab('logs'); });
  $('tab-mappings').addEventListener('click', function () { selectTab('mappings'); });

  function refreshAll() {
    loadCounters();
    if (state.tab === 'logs') loadLogs(false); else loadMaps(false);
  }

  function stamp() { $('updated').textContent = 'Updated ' + fmtTime(new Date().toISOString()).slice(11); }

  function stopTimer() { if (state.timer) { clearInterval(state.timer); state.timer = null; } }
  function applyAuto() {
    stopTimer();
    if ($('auto-refresh').checked) {
      state.timer = setInterval(function () {
        if (document.hidden || !state.signedIn) return;
        refreshAll();
      }, REFRESH_MS);
    }
  }
  $('auto-refresh').addEventListener('change', function () {
    sessionStorage.setItem(AUTO_KEY, $('auto-refresh').checked ? 'on' : 'off');
    applyAuto();
  });
  $('refresh-button').addEventListener('click', refreshAll);
  $('notice-close').addEventListener('click', clearNotice);

  // ---- counters ----

  function loadCounters() {
    [['failed', 'Failed'], ['queued', 'Queued']].forEach(function (pair) {
      api('GET', '/api/sync-logs' + query({ status: pair[0], limit: COUNT_LIMIT })).then(function (page) {
        var n = page.items.length;
        var node = $('count-' + pair[0]);
        node.textContent = pair[1] + ': ' + n + (page.next_cursor ? '+' : '');
        node.classList.toggle('zero', n === 0);
      }, failed('Counting ' + pair[0] + ' entries failed'));
    });
  }
  function filterByStatus(status) {
    $('log-status').value = status;
    if (state.tab !== 'logs') selectTab('logs');
    applyLogFilters();
  }
  $('count-failed').addEventListener('click', function () { filterByStatus('failed'); });
  $('count-queued').addEventListener('click', function () { filterByStatus('queued'); });

  // ---- sync log ----

  function readLogFilters() {
    var project = $('log-project').value.trim();
    if (project && !/^\d+$/.test(project)) { notify('error', 'The project id is a string of digits.'); return null; }
    var since = $('log-since').value;
    var sinceIso = '';
    if (since) {
      var d = new Date(since);
      if (isNaN(d.getTime())) { notify('error', 'The "since" time is not a valid date.'); return null; }
      sinceIso = d.toISOString();
    }
    return { status: $('log-status').value, kind: $('log-kind').value.trim(), project_id: project, since: sinceIso };
  }

  function applyLogFilters() {
    var q = readLogFilters();
    if (!q) return;
    state.logs.query = q;
    state.logs.items = [];
    state.logs.next = null;
    loadLogs(false);
  }

  $('log-filters').addEventListener('submit', function (ev) { ev.preventDefault(); applyLogFilters(); });
  $('log-status').addEventListener('change', applyLogFilters);
  $('log-since').addEventListener('change', applyLogFilters);
  $('log-clear').addEventListener('click', function () {
    $('log-status').value = ''; $('log-kind').value = ''; $('log-project').value = ''; $('log-since').value = '';
    applyLogFilters();
  });
  $('log-more').addEventListener('click', function () { loadLogs(true); });

  /**
   * Loads a list (its state s, its API path): more = the next page after the shown ones; else the first pages
   * again, as many rows as are shown. A newer load makes an older answer void (gen).
   */
  function loadList(s, path, moreButton, render, failure, more) {
    if (more && !s.next) return;
    var gen = more ? s.gen : ++s.gen;
    var limit = more ? PAGE_SIZE : Math.min(MAX_LIMIT, Math.max(PAGE_SIZE, s.items.length));
    var params = Object.assign({}, s.query, { limit: limit, cursor: more ? s.next : '' });
    s.loading = true;
    $(moreButton).disabled = true;
    return api('GET', path + query(params)).then(function (page) {
      if (gen !== s.gen) return;
      s.items = more ? s.items.concat(page.items) : page.items;
      s.next = page.next_cursor;
      render();
      stamp();
    }, failed(failure)).then(function () {
      s.loading = false;
      $(moreButton).disabled = false;
    });
  }

  function loadLogs(more) {
    return loadList(state.logs, '/api/sync-logs', 'log-more', renderLogs, 'Loading the sync log failed', more);
  }

  function renderLogs() {
    var s = state.logs;
    var body = $('log-rows');
    body.replaceChildren();
    if (s.items.length === 0) {
      var empty = el('tr');
      var cell = td('No sync log entries match these filters.', 'empty');
      cell.colSpan = 10;
      empty.appendChild(cell);
      body.appendChild(empty);
    }
    var selectedShown = false;
    s.items.forEach(function (e) {
      var tr = el('tr', 'row' + (e.id === s.selected ? ' selected' : ''));
      tr.tabIndex = 0;
      tr.dataset.id = e.id;
      tr.dataset.status = e.status;
      tr.setAttribute('aria-expanded', String(e.id === s.selected));
      tr.appendChild(td(e.id, 'mono nowrap'));
      tr.appendChild(timeCell(e.created_at));
      tr.appendChild(td(show(e.kind), 'nowrap'));
      tr.appendChild(td(show(e.trigger)));
      var crm = td(show(e.crm));
      if (e.target) crm.appendChild(el('span', 'sub mono', show(e.target)));
      tr.appendChild(crm);
      tr.appendChild(td(show(e.project_id), 'mono nowrap'));
      var st = el('td');
      st.appendChild(badge(e.status, LOG_STATUSES));
      tr.appendChild(st);
      tr.appendChild(td(show(e.attempts), 'num'));
      tr.appendChild(td(fmtDuration(e.duration_ms), 'num'));
      tr.appendChild(td(e.error ? show(e.error) : '', 'err', e.error ? show(e.error) : ''));
      tr.addEventListener('click', function () { toggleLog(e.id); });
      tr.addEventListener('keydown', function (ev) { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); toggleLog(e.id); } });
      body.appendChild(tr);
      if (e.id === s.selected) {
        selectedShown = true;
        body.appendChild(detailRow(e));
      }
    });
    if (s.selected && !selectedShown && s.fetched && s.fetched.id === s.selected) body.insertBefore(detailRow(s.fetched), body.firstChild);
    $('log-more').hidden = !s.next;
    $('log-count').textContent = s.items.length + (s.items.length === 1 ? ' entry' : ' entries') + (s.next ? ' shown' : '');
  }

  function toggleLog(id) {
    var s = state.logs;
    if (s.selected === id) { s.selected = null; s.fetched = null; renderLogs(); return; }
    s.selected = id;
    s.fetched = null;
    renderLogs();
    api('GET', '/api/sync-logs/' + encodeURIComponent(id)).then(function (entry) {
      if (s.selected !== id) return;
      s.fetched = entry;
      var i = s.items.findIndex(function (x) { return x.id === id; });
      if (i >= 0) s.items[i] = entry;
      renderLogs();
    }, failed('Loading entry ' + id + ' failed'));
  }

  function field(grid, label, value, mono) {
    var wrap = el('div');
    wrap.appendChild(el('dt', '', label));
    var dd = el('dd', mono ? 'mono' : '');
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = value;
    wrap.appendChild(dd);
    grid.appendChild(wrap);
  }

  /** Local time, with the API's ISO 8601 UTC value under it. */
  function timeWithIso(iso) {
    if (!iso) return '—';
    var box = el('span', '', fmtTime(iso));
    box.appendChild(el('span', 'sub mono', String(iso)));
    return box;
  }

  function section(parent, title, text, className) {
    var box = el('div', 'detail-section');
    box.appendChild(el('h3', '', title));
    box.appendChild(el('pre', className || '', text));
    parent.appendChild(box);
  }

  function detailRow(e) {
    var tr = el('tr', 'detail');
    tr.id = 'log-detail';
    tr.dataset.id = e.id;
    var cell = el('td');
    cell.colSpan = 10;
    var head = el('div', 'detail-head');
    head.appendChild(el('h2', '', 'Sync log entry ' + e.id));
    head.appendChild(badge(e.status, LOG_STATUSES));
    head.appendChild(el('div', 'spacer'));
    if (e.status === 'failed') {
      var retry = el('button', 'danger', 'Retry');
      retry.type = 'button';
      retry.id = 'retry-button';
      retry.addEventListener('click', function (ev) { ev.stopPropagation(); retryEntry(e.id, retry); });
      head.appendChild(retry);
    }
    var close = el('button', '', 'Close');
    close.type = 'button';
    close.addEventListener('click', function () { toggleLog(e.id); });
    head.appendChild(close);
    cell.appendChild(head);

    var grid = el('dl', 'detail-grid');
    field(grid, 'Kind', show(e.kind));
    field(grid, 'Trigger', show(e.trigger));
    field(grid, 'CRM', show(e.crm));
    field(grid, 'Target', show(e.target), true);
    field(grid, 'Project', show(e.project_id), true);
    field(grid, 'Attempts', show(e.attempts));
    field(grid, 'Created', timeWithIso(e.created_at));
    field(grid, 'Finished', timeWithIso(e.finished_at));
    field(grid, 'Duration', fmtDuration(e.duration_ms));
    field(grid, 'Parent entry', show(e.parent_id), true);
    field(grid, 'Inbox id', show(e.inbox_id), true);
    cell.appendChild(grid);

    if (e.detail) section(cell, 'Detail', show(e.detail));
    if (e.error) section(cell, e.status === 'failed' ? 'Error' : 'Last error', show(e.error), 'error');
    section(cell, 'Payload', pretty(e.payload === undefined ? {} : e.payload));
    tr.appendChild(cell);
    return tr;
  }

  function retryEntry(id, button) {
    button.disabled = true;
    api('POST', '/api/sync-logs/' + encodeURIComponent(id) + '/retry').then(function (entry) {
      notify('ok', 'Entry ' + id + ' is queued to run again' + (entry && entry.status ? ' (now ' + show(entry.status) + ').' : '.'));
    }, function (err) {
      if (err instanceof ApiError && err.status === 409) notify('info', 'Not retried: ' + err.message);
      else failed('Retrying entry ' + id + ' failed')(err);
    }).then(function () {
      state.logs.fetched = null;
      loadCounters();
      return loadLogs(false);
    });
  }

  // ---- mappings ----

  function readMapFilters() {
    var project = $('map-project').value.trim();
    if (project && !/^\d+$/.test(project)) { notify('error', 'The project id is a string of digits.'); return null; }
    return { crm: $('map-crm').value, status: $('map-status').value, project_id: project };
  }

  function applyMapFilters() {
    var q = readMapFilters();
    if (!q) return;
    state.maps.query = q;
    state.maps.items = [];
    state.maps.next = null;
    loadMaps(false);
  }

  $('map-filters').addEventListener('submit', function (ev) { ev.preventDefault(); applyMapFilters(); });
  $('map-crm').addEventListener('change', applyMapFilters);
  $('map-status').addEventListener('change', applyMapFilters);
  $('map-clear').addEventListener('click', function () {
    $('map-crm').value = ''; $('map-status').value = ''; $('map-project').value = '';
    applyMapFilters();
  });
  $('map-more').addEventListener('click', function () { loadMaps(true); });

  function loadMaps(more) {
    return loadList(state.maps, '/api/mappings', 'map-more', renderMaps, 'Loading the mappings failed', more);
  }

  function renderMaps() {
    var s = state.maps;
    var body = $('map-rows');
    body.replaceChildren();
    if (s.items.length === 0) {
      var empty = el('tr');
      var cell = td('No mappings match these filters.', 'empty');
      cell.colSpan = 8;
      empty.appendChild(cell);
      body.appendChild(empty);
    }
    s.items.forEach(function (m) {
      var tr = el('tr');
      tr.dataset.id = m.id;
      tr.dataset.status = m.status;
      tr.appendChild(td(m.id, 'mono nowrap'));
      tr.appendChild(td(show(m.crm)));
      var source = m.crm === 'record' ? show(m.record_crm_module) + ' / ' + show(m.record_crm_record_id) : show(m.appointment_id);
      tr.appendChild(td(source, 'mono'));
      tr.appendChild(td(show(m.project_id), 'mono nowrap project'));
      var st = el('td');
      st.appendChild(badge(m.status, MAP_STATUSES));
      tr.appendChild(st);
      tr.appendChild(td(m.error ? show(m.error) : '', 'err wrap'));
      tr.appendChild(timeCell(m.created_at));
      tr.appendChild(timeCell(m.updated_at));
      body.appendChild(tr);
    });
    $('map-more').hidden = !s.next;
    $('map-count').textContent = s.items.length + (s.items.length === 1 ? ' mapping' : ' mappings') + (s.next ? ' shown' : '');
  }

  $('associate-button').addEventListener('click', function () {
    var button = $('associate-button');
    button.disabled = true;
    api('POST', '/api/mappings/associate').then(function (res) {
      var ids = res && Array.isArray(res.sync_log_ids) ? res.sync_log_ids.map(show) : [];
      notify('ok', ids.length
        ? 'Associating pending mappings: ' + ids.length + ' action(s) started (sync log ' + ids.join(', ') + ').'
        : 'No pending mappings to associate.');
      setTimeout(function () { if (state.signedIn) refreshAll(); }, 1500);
    }, failed('Associating pending mappings failed')).then(function () {
      button.disabled = false;
      loadMaps(false);
      loadCounters();
    });
  });

  $('reconcile-button').addEventListener('click', function () {
    var button = $('reconcile-button');
    button.disabled = true;
    api('POST', '/api/reconcile').then(function (res) {
      var id = res && res.id !== undefined ? show(res.id) : '';
      notify('ok', 'Reconciliation started' + (id ? ' (run ' + id + ').' : '.'));
      loadCounters();
    }, function (err) {
      if (err instanceof ApiError && err.status === 404) notify('info', 'Reconcile is not available on this daemon (POST /api/reconcile answered 404).');
      else if (err instanceof ApiError && err.status === 409) notify('info', 'A reconciliation run is already going: ' + err.message);
      else failed('Starting a reconciliation failed')(err);
    }).then(function () { button.disabled = false; });
  });

  // ---- start ----

  if (sessionStorage.getItem(TOKEN_KEY)) enterApp(); else showLogin('');
})();
</script>
</body>
</html>
`;

const [BEFORE_STYLE, BETWEEN, AFTER_SCRIPT] = PAGE.split(NONCE_PLACEHOLDER);
if (AFTER_SCRIPT === undefined || PAGE.split(NONCE_PLACEHOLDER).length !== 3) {
  throw new Error('dashboard.page: expected exactly two nonce placeholders (style and script)');
}

/** The page with `nonce` on its inline style and script; `nonce` must be base64 (no HTML-special characters). */
export function dashboardPage(nonce: string): string {
  if (!/^[A-Za-z0-9+/=]+$/.test(nonce)) throw new Error('dashboard nonce must be base64');
  return BEFORE_STYLE + nonce + BETWEEN + nonce + AFTER_SCRIPT;
}

/** The Content-Security-Policy for the page: its own nonce'd inline style and script, API calls to this origin. */
export function dashboardCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
