// The histogram page: composes the workbench (range, picker, focus window,
// table and charts). Other panels mount into their own <section> of
// histogram.html (#notices, #races), e.g.
//   mountRacesPanel(document.getElementById("races")!, () => workbench.panelFilters(), (cb) => workbench.onViewChange(cb));
import "uplot/dist/uPlot.min.css";
import "../common/page.css";
import "./histogram.css";
import { mountNotices } from "./notices.js";
import { mountRacesPanel } from "./races-panel.js";
import { Workbench } from "./workbench.js";

const workbench = new Workbench();
workbench.start();
mountNotices(document.getElementById("notices")!);
mountRacesPanel(
  document.getElementById("races")!,
  () => workbench.panelFilters(),
  (cb) => workbench.onViewChange(cb),
);
