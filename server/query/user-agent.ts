// Browser and OS names from a User-Agent header, for the series picker
// ("Chrome 120 on Windows"). Deliberately small: the families the probe page
// runs in, checked in the order that disambiguates them (every Chromium
// browser also says "Chrome" and "Safari"; iOS says "like Mac OS X"; Android
// says "Linux").

export interface UserAgentInfo {
  /** "Chrome 120", "Firefox 121", "Safari 17.1", "Edge 120", ...; null when unknown. */
  browser: string | null;
  /** "Windows 10/11", "macOS 10.15.7", "iOS 17.1", "Android 14", "Linux", "ChromeOS"; null when unknown. */
  os: string | null;
}

const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/\bOPR\/(\d+)/, "Opera"],
  [/\bSamsungBrowser\/(\d+)/, "Samsung Internet"],
  [/\bFirefox\/(\d+)/, "Firefox"],
  [/\bFxiOS\/(\d+)/, "Firefox"],
  [/\bHeadlessChrome\/(\d+)/, "Headless Chrome"],
  [/\bCriOS\/(\d+)/, "Chrome"],
  [/\bChromium\/(\d+)/, "Chromium"],
  [/\bChrome\/(\d+)/, "Chrome"],
  // Safari's own version is in "Version/", its "Safari/" token is the WebKit build.
  [/\bVersion\/(\d+(?:\.\d+)?).*\bSafari\//, "Safari"],
];

function browserOf(ua: string): string | null {
  for (const [re, name] of BROWSERS) {
    const m = re.exec(ua);
    if (m) return `${name} ${m[1]}`;
  }
  return null;
}

const WINDOWS_NT: Record<string, string> = {
  "10.0": "10/11", // Windows 11 still sends NT 10.0
  "6.3": "8.1",
  "6.2": "8",
  "6.1": "7",
};

const dotted = (v: string) => v.replace(/_/g, ".");

function osOf(ua: string): string | null {
  let m: RegExpExecArray | null;
  if ((m = /\b(?:iPhone|iPad|iPod)\b.*?\bOS (\d+(?:_\d+)*)/.exec(ua))) return `iOS ${dotted(m[1]!)}`;
  if ((m = /\bAndroid (\d+(?:\.\d+)*)/.exec(ua))) return `Android ${m[1]}`;
  if (/\bAndroid\b/.test(ua)) return "Android";
  if ((m = /\bWindows NT (\d+\.\d+)/.exec(ua))) {
    const v = WINDOWS_NT[m[1]!];
    return v === undefined ? "Windows" : `Windows ${v}`;
  }
  if (/\bWindows\b/.test(ua)) return "Windows";
  if (/\bCrOS\b/.test(ua)) return "ChromeOS";
  if ((m = /\bMac OS X (\d+(?:[._]\d+)*)/.exec(ua))) return `macOS ${dotted(m[1]!)}`;
  if (/\bMacintosh\b/.test(ua)) return "macOS";
  if (/\bLinux\b/.test(ua)) return "Linux";
  return null;
}

export function parseUserAgent(ua: string | null | undefined): UserAgentInfo {
  if (typeof ua !== "string" || ua === "") return { browser: null, os: null };
  return { browser: browserOf(ua), os: osOf(ua) };
}
