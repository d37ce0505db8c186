// A `service` argument from the host highlights that card.
document.addEventListener('tool-input', (event) => {
  const id = event.detail?.service;
  const card = id && document.getElementById(id);
  if (!card) return;
  card.classList.add('highlight');
  card.scrollIntoView({ block: 'nearest' });
});
