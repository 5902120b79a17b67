// How an AP, a neighbour and a station look, on the floor plan and in the topology alike.
export const BAND_COLOURS = { '2G': '#e07b00', '5G': '#1f6fd1', '6G': '#8e3fc8' };

export function radioOf(ap, band) {
  return ap?.radios.find((r) => r.band === band);
}

/**
 * An AP: a disc in its channel's colour (grey when it has no radio on the band, hollow and
 * dashed when offline), a ring whose radius grows with its transmit power, and for a changed
 * AP of a plan a magenta outline with "old→new".
 */
export function drawAp(ctx, x, y, ap, band, colourOf, change, selected) {
  const r = radioOf(ap, band);
  const online = ap?.connected;
  if (r) {
    ctx.beginPath();
    ctx.arc(x, y, 6 + r.txPower * 0.9, 0, Math.PI * 2);
    ctx.strokeStyle = colourOf(r.channel);
    ctx.globalAlpha = 0.55;
    ctx.lineWidth = 1.5;
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
  ctx.beginPath();
  ctx.arc(x, y, 6, 0, Math.PI * 2);
  ctx.fillStyle = r ? colourOf(r.channel) : '#bbb';
  if (online) ctx.fill();
  ctx.setLineDash(online ? [] : [2, 2]);
  ctx.lineWidth = selected ? 3 : 1;
  ctx.strokeStyle = selected ? '#000' : '#333';
  ctx.stroke();
  ctx.setLineDash([]);
  if (r) {
    ctx.fillStyle = '#111';
    ctx.font = '10px system-ui, sans-serif';
    ctx.fillText(String(r.channel), x + 8, y - 6);
  }
  if (change) {
    ctx.beginPath();
    ctx.arc(x, y, 10, 0, Math.PI * 2);
    ctx.strokeStyle = '#d0008a';
    ctx.lineWidth = 3;
    ctx.stroke();
    ctx.fillStyle = '#d0008a';
    ctx.font = 'bold 11px system-ui, sans-serif';
    ctx.fillText(change, x + 8, y + 14);
  }
}

/** An unmanaged neighbour: a hollow diamond in its channel's colour. */
export function drawNeighbour(ctx, x, y, channelColour) {
  ctx.beginPath();
  ctx.moveTo(x, y - 6); ctx.lineTo(x + 6, y); ctx.lineTo(x, y + 6); ctx.lineTo(x - 6, y); ctx.closePath();
  ctx.fillStyle = '#fff';
  ctx.fill();
  ctx.lineWidth = 2;
  ctx.strokeStyle = channelColour;
  ctx.stroke();
}

/** "36→52" / "20→14 dBm" for the AP's changes on a band (undefined when none). */
export function changeLabel(diff, serial, band) {
  const c = diff?.get(serial)?.[band];
  if (!c) return undefined;
  const parts = [];
  if (c.channel) parts.push(`${c.channel[0] ?? '?'}→${c.channel[1]}`);
  if (c.txPower) parts.push(`${c.txPower[0] ?? '?'}→${c.txPower[1]} dBm`);
  return parts.join(' ');
}
