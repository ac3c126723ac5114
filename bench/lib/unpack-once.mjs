// Run by bench/environments.mjs in a process of its own (its peak RSS is the figure): resolves an image and
// unpacks it into an empty cache, as a run's first start in it does (@delta/images), and prints what it
// took as JSON. With --resolve-only it stops after reading the image (the process's baseline).
//
//   node bench/lib/unpack-once.mjs REFERENCE CACHE-DIR [--resolve-only]
import { resolveImage, unpackImage } from '../../packages/images/dist/index.js';

const [reference, cacheDir, flag] = process.argv.slice(2);
const started = performance.now();
const image = await resolveImage(reference, { cacheDir, cwd: process.cwd() });
const resolvedMs = performance.now() - started;
if (flag === '--resolve-only') {
  console.log(JSON.stringify({ resolvedMs, layers: image.layers.length }));
} else {
  const unpacked = await unpackImage(image, { cacheDir });
  if (unpacked.reused) throw new Error(`${cacheDir} held the image already: not a first unpack`);
  const layerBytes = image.layers.reduce((sum, layer) => sum + (layer.size ?? 0), 0);
  console.log(
    JSON.stringify({ resolvedMs, unpackMs: performance.now() - started, root: unpacked.root, layers: image.layers.length, layerBytes }),
  );
}
