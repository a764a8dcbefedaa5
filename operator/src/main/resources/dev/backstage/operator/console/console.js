// The console's only script (the Content-Security-Policy allows no other): confirms actions, and refreshes the
// overview and pool pages every 5 s by fetching the same page and swapping <main> (server-escaped markup).
'use strict';
document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form.getAttribute('data-confirm');
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
const live = location.pathname === '/' || /^\/pools\/[^/]+\/[^/]+$/.test(location.pathname);
if (live) {
  setInterval(async () => {
    if (document.activeElement && document.activeElement.tagName === 'SELECT') {
      return; // do not swap the filter while it is open
    }
    const response = await fetch(location.href, { credentials: 'same-origin' });
    if (!response.ok || response.redirected) {
      return;
    }
    const page = new DOMParser().parseFromString(await response.text(), 'text/html');
    const fresh = page.getElementById('live');
    const main = document.getElementById('live');
    if (fresh && main) {
      main.replaceChildren(...fresh.childNodes);
    }
  }, 5000);
}
