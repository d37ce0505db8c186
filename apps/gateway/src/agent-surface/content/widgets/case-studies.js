// Filter chips show the case studies of one service; a `service` argument from the host picks the chip.
function applyFilter(id) {
  for (const chip of document.querySelectorAll('.chip')) {
    chip.setAttribute('aria-pressed', String(chip.dataset.filter === (id || '')));
  }
  for (const card of document.querySelectorAll('article[data-services]')) {
    card.hidden = !!id && !card.dataset.services.split(' ').includes(id);
  }
}
for (const chip of document.querySelectorAll('.chip')) {
  chip.addEventListener('click', () => applyFilter(chip.dataset.filter));
}
document.addEventListener('tool-input', (event) => {
  if (event.detail?.service) applyFilter(event.detail.service);
});
