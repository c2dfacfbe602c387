// Who is probing: clientId persists in localStorage across reloads, sessionId is per page load.
const CLIENT_ID_KEY = "tailprobe.clientId";
const LABEL_KEY = "tailprobe.label";

export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function loadClientId(): string {
  try {
    const stored = localStorage.getItem(CLIENT_ID_KEY);
    if (stored !== null && /^[A-Za-z0-9_-]{8,64}$/.test(stored)) return stored;
    const id = randomToken();
    localStorage.setItem(CLIENT_ID_KEY, id);
    return id;
  } catch {
    // Storage can be disabled (privacy mode): the id then lives as long as the page.
    return randomToken();
  }
}

export function loadLabel(): string | undefined {
  try {
    const fromUrl = new URLSearchParams(location.search).get("label");
    if (fromUrl !== null) {
      localStorage.setItem(LABEL_KEY, fromUrl.slice(0, 64));
      return fromUrl.slice(0, 64);
    }
    return localStorage.getItem(LABEL_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}
