// A screenshot as the screen shows it: each zone's current image or video frame drawn at its place
// on a canvas (object-fit: contain reproduced), encoded as JPEG.
function containRect(box, w, h) {
  if (!w || !h) return box;
  const scale = Math.min(box.width / w, box.height / h);
  const dw = w * scale;
  const dh = h * scale;
  return { x: box.x + (box.width - dw) / 2, y: box.y + (box.height - dh) / 2, width: dw, height: dh };
}

export function screenshot(plays) {
  const canvas = document.createElement('canvas');
  canvas.width = window.innerWidth;
  canvas.height = window.innerHeight;
  const g = canvas.getContext('2d');
  g.fillStyle = '#000';
  g.fillRect(0, 0, canvas.width, canvas.height);
  for (const play of plays) {
    const media = play.el.querySelector('img, video');
    if (!media) continue;
    const box = media.getBoundingClientRect();
    const w = media.naturalWidth || media.videoWidth;
    const h = media.naturalHeight || media.videoHeight;
    const r = containRect(box, w, h);
    g.drawImage(media, r.x, r.y, r.width, r.height);
  }
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas gave no image'))), 'image/jpeg', 0.85));
}
