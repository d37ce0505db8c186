/**
 * A Blob's bytes as base64, as careers-apply's `cvFile.data` wants them. Works in browsers and Node (no
 * FileReader); converted in 32 KiB slices because spreading 5 MiB into one call overflows the stack.
 */
export async function readAsBase64(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
