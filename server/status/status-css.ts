// The status page's stylesheet, served as /status.css: the page carries no
// inline style (the pages' Content-Security-Policy allows style-src 'self'
// only), its bars and lines are SVG shapes with classes. Colours follow the
// system's light or dark setting, as the other pages do; state colours from
// the Okabe–Ito palette, so a state never rests on red against green alone
// (every bar also says its state in its title, every state in words).
export const STATUS_CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; --card: #f7f8fa;
  --up: #009e73; --degraded: #e69f00; --down: #d55e00; --none: #c5cad3; --p50: #0072b2; --p99: #cc79a7;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  font-size: 15px; line-height: 1.45;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171c; --fg: #e4e7ec; --muted: #9aa3b2; --line: #2c323c; --card: #1a1e25; --none: #3a414d; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 980px; padding: 1rem 1rem 3rem; background: var(--bg); color: var(--fg); }
a { color: var(--p50); }
header h1 { font-size: 1.4rem; margin: 0.2rem 0; }
.overall { font-size: 1.1rem; font-weight: 600; padding: 0.6rem 0.9rem; border-radius: 6px; background: var(--card);
  border-left: 6px solid var(--none); margin: 0.6rem 0; }
.overall.state-up { border-left-color: var(--up); }
.overall.state-degraded { border-left-color: var(--degraded); }
.overall.state-down { border-left-color: var(--down); }
.meta { color: var(--muted); font-size: 0.9rem; margin: 0.2rem 0; }
section.server { border: 1px solid var(--line); border-radius: 8px; padding: 0.8rem 1rem; margin: 1rem 0; }
section.server h2 { font-size: 1.15rem; margin: 0 0 0.4rem; display: flex; gap: 0.6rem; align-items: baseline; flex-wrap: wrap; }
.badge { font-size: 0.85rem; font-weight: 600; padding: 0.05rem 0.5rem; border-radius: 999px; color: #fff; background: var(--none); }
.badge.state-up { background: var(--up); }
.badge.state-degraded { background: var(--degraded); color: #1d2330; }
.badge.state-down { background: var(--down); }
.badge.state-unknown { color: var(--fg); }
.since { color: var(--muted); font-size: 0.9rem; font-weight: 400; }
dl.uptime { display: flex; gap: 1.5rem; margin: 0.4rem 0 0.6rem; flex-wrap: wrap; }
dl.uptime div { display: flex; flex-direction: column; }
dl.uptime dt { color: var(--muted); font-size: 0.8rem; }
dl.uptime dd { margin: 0; font-size: 1.1rem; font-variant-numeric: tabular-nums; font-weight: 600; }
svg.bars, svg.latency { display: block; width: 100%; height: auto; }
svg .day.up { fill: var(--up); }
svg .day.degraded { fill: var(--degraded); }
svg .day.down { fill: var(--down); }
svg .day.none { fill: var(--none); }
svg .p50 { stroke: var(--p50); fill: none; stroke-width: 1.5; }
svg .p99 { stroke: var(--p99); fill: none; stroke-width: 1.5; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg text { fill: var(--muted); font-size: 11px; }
.axis { display: flex; justify-content: space-between; color: var(--muted); font-size: 0.8rem; margin-bottom: 0.4rem; }
.legend { color: var(--muted); font-size: 0.8rem; margin: 0.2rem 0; }
.legend .swatch { display: inline-block; width: 0.8rem; height: 0.2rem; vertical-align: middle; margin: 0 0.3rem 0 0.8rem; }
.legend .swatch.p50 { background: var(--p50); }
.legend .swatch.p99 { background: var(--p99); }
.legend .swatch.day { height: 0.8rem; width: 0.5rem; border-radius: 1px; }
.legend .swatch.day:first-child { margin-left: 0; }
.legend .swatch.day.up { background: var(--up); }
.legend .swatch.day.degraded { background: var(--degraded); }
.legend .swatch.day.down { background: var(--down); }
.legend .swatch.day.none { background: var(--none); }
h3 { font-size: 1rem; margin: 0.8rem 0 0.3rem; }
ol.incidents { list-style: none; padding: 0; margin: 0; }
ol.incidents li { padding: 0.35rem 0; border-top: 1px solid var(--line); }
ol.incidents .when { color: var(--muted); font-size: 0.9rem; font-variant-numeric: tabular-nums; }
.kind { font-weight: 600; }
.kind.down { color: var(--down); }
.kind.degraded { color: var(--degraded); }
.none-yet { color: var(--muted); }
footer { color: var(--muted); font-size: 0.85rem; margin-top: 2rem; }
`;
