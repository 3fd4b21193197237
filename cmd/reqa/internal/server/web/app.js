// reqa's single-page UI. Every piece of text that comes from the index or
// the question is put in the page with textContent, never parsed as HTML:
// the corpus may contain markup and scripts.
(function () {
  'use strict';

  const $ = (id) => document.getElementById(id);
  const form = $('ask-form');
  const qInput = $('q');
  const rankerSelect = $('ranker');
  const kInput = $('k');
  const status = $('status');
  const list = $('answers');
  const info = $('index-info');
  const tokenForm = $('token-form');
  const tokenInput = $('token');
  const utf8 = new TextEncoder();
  const fromUTF8 = new TextDecoder();

  let defaultRanker = '';
  let latest = 0; // number of the newest search; older replies are dropped
  let inFlight = null;
  // The server's access token, when it asks for one (401): asked once and
  // kept for this tab only.
  const tokenKey = 'reqa-token';
  let token = sessionStorage.getItem(tokenKey) || '';

  // api fetches a JSON API path, with the token if there is one.
  function api(path, signal) {
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    return fetch(path, { signal, headers });
  }

  // needToken shows the token form after a 401; a token that was sent and
  // refused is forgotten.
  function needToken() {
    const refused = token !== '';
    token = '';
    sessionStorage.removeItem(tokenKey);
    tokenForm.hidden = false;
    tokenInput.focus();
    setState('error', refused ? 'The token was refused: enter the right one.' : 'This server needs its access token.');
  }

  // el makes an element with a class and text (as text, never as HTML).
  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function setState(state, message) {
    document.body.dataset.state = state;
    status.textContent = message;
    status.classList.toggle('error', state === 'error');
  }

  function formatScore(v) {
    return typeof v === 'number' && isFinite(v) ? v.toFixed(3) : '–';
  }

  // splitContext cuts the context around the answer sentence. The API's
  // offsets count UTF-8 bytes, so cut the bytes, not the UTF-16 string.
  function splitContext(a) {
    const bytes = utf8.encode(a.context);
    if (Number.isInteger(a.start) && Number.isInteger(a.end) && a.start >= 0 && a.start <= a.end && a.end <= bytes.length) {
      const parts = [bytes.subarray(0, a.start), bytes.subarray(a.start, a.end), bytes.subarray(a.end)].map((b) => fromUTF8.decode(b));
      if (parts[1] === a.sentence) return parts;
    }
    const i = a.context.indexOf(a.sentence);
    if (i >= 0) return [a.context.slice(0, i), a.sentence, a.context.slice(i + a.sentence.length)];
    return null;
  }

  function renderAnswer(a, ranker) {
    const li = el('li', 'answer');
    const head = el('div', 'meta');
    head.append(el('span', 'rank', '#' + a.rank));
    if (a.title) head.append(el('span', 'title', a.title));
    if (a.source) head.append(el('span', 'source', a.source));
    if (a.id) head.append(el('span', 'id', 'id ' + a.id));
    li.append(head);

    const ctx = el('p', 'context');
    const parts = splitContext(a);
    if (parts) {
      ctx.append(document.createTextNode(parts[0]), el('mark', 'sentence', parts[1]), document.createTextNode(parts[2]));
    } else {
      ctx.append(el('mark', 'sentence', a.sentence), document.createTextNode(' — ' + a.context));
    }
    li.append(ctx);
    if (Array.isArray(a.also) && a.also.length) {
      li.append(el('p', 'also muted', 'Also in: ' + a.also.join(', ')));
    }

    const scores = el('dl', 'scores');
    const add = (name, value, main) => {
      const wrap = el('div', main ? 'score main' : 'score');
      wrap.append(el('dt', '', name), el('dd', '', formatScore(value)));
      scores.append(wrap);
    };
    const inputs = a.scores || {};
    if (!(ranker in inputs)) add(ranker, a.score, true);
    for (const name of Object.keys(inputs).sort()) add(name, inputs[name], name === ranker);
    li.append(scores);
    return li;
  }

  function render(reply, ms) {
    list.replaceChildren(...reply.answers.map((a) => renderAnswer(a, reply.ranker)));
    const n = reply.answers.length;
    const msg = n === 0
      ? 'No answer: no sentence shares a word with the question (' + reply.ranker + ').'
      : n + (n === 1 ? ' answer' : ' answers') + ' by ' + reply.ranker + ' in ' + Math.round(ms) + ' ms';
    setState('done', msg);
  }

  async function search(p) {
    const mine = ++latest;
    if (inFlight) inFlight.abort();
    inFlight = new AbortController();
    list.replaceChildren();
    setState('loading', 'Searching…');
    const params = new URLSearchParams({ q: p.q });
    if (p.k) params.set('k', p.k);
    if (p.ranker) params.set('ranker', p.ranker);
    const t0 = performance.now();
    try {
      const res = await api('/v1/ask?' + params, inFlight.signal);
      const body = await res.json().catch(() => ({ error: res.status + ' ' + res.statusText }));
      if (mine !== latest) return;
      if (res.status === 401) {
        needToken();
        return;
      }
      if (!res.ok) {
        setState('error', 'Error: ' + (body.error || res.statusText));
        return;
      }
      render(body, performance.now() - t0);
    } catch (err) {
      if (err.name === 'AbortError' || mine !== latest) return;
      setState('error', 'The server did not answer: ' + err.message);
    }
  }

  function paramsFromURL() {
    const u = new URLSearchParams(location.search);
    return { q: (u.get('q') || '').trim(), ranker: u.get('ranker') || '', k: u.get('k') || '' };
  }

  function fillForm(p) {
    qInput.value = p.q;
    const known = Array.from(rankerSelect.options).some((o) => o.value === p.ranker);
    rankerSelect.value = known ? p.ranker : defaultRanker;
    if (p.k) kInput.value = p.k;
  }

  async function loadStats() {
    const res = await api('/v1/stats');
    if (res.status === 401) {
      needToken();
      throw new Error('this server needs its access token');
    }
    const st = await res.json();
    if (!res.ok) throw new Error(st.error || res.statusText);
    defaultRanker = st.default_ranker;
    rankerSelect.replaceChildren(...st.rankers.map((name) => {
      const o = el('option', '', name === st.default_ranker ? name + ' (default)' : name);
      o.value = name;
      return o;
    }));
    rankerSelect.value = defaultRanker;
    if (st.limits) {
      kInput.max = st.limits.max_k;
      qInput.maxLength = st.limits.max_question_chars;
    }
    info.textContent = st.index + ' · ' + st.sentences + ' sentences from ' + st.contexts + ' contexts';
  }

  // Submitting puts the question in the URL (so it can be shared, and Back
  // works) and runs the search.
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = { q: qInput.value.trim(), ranker: rankerSelect.value, k: kInput.value };
    if (!p.q) {
      qInput.focus();
      return;
    }
    history.pushState(null, '', '?' + new URLSearchParams(p));
    search(p);
  });

  window.addEventListener('popstate', () => {
    const p = paramsFromURL();
    fillForm(p);
    if (p.q) {
      search(p);
    } else {
      list.replaceChildren();
      setState('idle', '');
    }
  });

  // start describes the index, then runs the search in the URL, if any.
  function start() {
    loadStats()
      .then(() => true)
      .catch((err) => {
        info.textContent = 'Could not describe the index: ' + err.message;
        return tokenForm.hidden; // go on, unless the token is being asked for
      })
      .then((go) => {
        if (!go) return;
        const p = paramsFromURL();
        fillForm(p);
        if (p.q) search(p);
        else setState('idle', '');
      });
  }

  tokenForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    token = tokenInput.value.trim();
    if (!token) return;
    sessionStorage.setItem(tokenKey, token);
    tokenInput.value = '';
    tokenForm.hidden = true;
    setState('loading', 'Checking the token…');
    start();
  });

  start();
})();
