// The histogram page: composes the workbench (range, picker, focus window,
// table and charts). Other panels mount into their own <section> here.
import "uplot/dist/uPlot.min.css";
import "../common/page.css";
import "./histogram.css";
import { Workbench } from "./workbench.js";

new Workbench().start();
