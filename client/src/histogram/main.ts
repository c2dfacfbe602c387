// The histogram page: composes the workbench (range, picker, focus window,
// table and charts). Other panels mount into their own <section> of
// histogram.html (#notices, #races), e.g.
//   mountRacesPanel(document.getElementById("races")!, () => workbench.panelFilters(), (cb) => workbench.onViewChange(cb));
import "uplot/dist/uPlot.min.css";
import "../common/page.css";
import "./histogram.css";
import { AttributionPanel } from "./attribution-panel.js";
import { mountChangesList } from "./changes-list.js";
import { mountForensicsPanel } from "./forensics-panel.js";
import { mountIncidentsPanel } from "./incidents-panel.js";
import { mountNotices } from "./notices.js";
import { mountRacesPanel } from "./races-panel.js";
import { mountStressPanel } from "./stress-panel.js";
import { Workbench } from "./workbench.js";
import { markStarted } from "../common/started.js";

const workbench = new Workbench();
workbench.start();
mountNotices(document.getElementById("notices")!);
mountRacesPanel(
  document.getElementById("races")!,
  () => workbench.panelFilters(),
  (cb) => workbench.onViewChange(cb),
);
mountStressPanel(
  document.getElementById("stress")!,
  () => workbench.panelFilters(),
  (cb) => workbench.onViewChange(cb),
);
const attribution = new AttributionPanel(document.getElementById("attribution")!, () => workbench.panelFilters());
workbench.onPick((pick) => void attribution.open(pick));
const forensics = mountForensicsPanel(document.getElementById("forensics")!, workbench);
// A change chosen (in its list or on a time chart): its series after against before, in the compare panel.
const changes = mountChangesList(document.getElementById("changes")!, workbench, (c) => forensics.compareChange(c));
workbench.onChangeMark((id) => changes.choose(id));
mountIncidentsPanel(document.getElementById("incidents")!, workbench);
markStarted();
