// Getting text out of the app: to the clipboard, or as a file the browser (or Electron) saves.

/** Saves `text` as a file named `fileName`, through the page's own download. */
export function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // The click starts the download synchronously; the URL is not needed afterwards.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Node ids are `mesh.name`; a file name keeps them readable but safe on every OS. */
export function safeFileName(name: string): string {
  return name.replace(/[^\w.-]+/g, '_');
}
