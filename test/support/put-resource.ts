/** PUTs `body` as JSON at `path` of the API at `apiUrl`; a refusal throws with the API's answer, so setup never fails silently. */
export async function putResource(apiUrl: string, path: string, body: object): Promise<void> {
  const response = await fetch(`${apiUrl}${path}`, { method: 'PUT', body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`PUT ${path} answered ${response.status}: ${await response.text()}`);
}
