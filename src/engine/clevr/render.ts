/**
 * Draws a CLEVR-like picture of a scene graph: shaded cubes, spheres and cylinders on a grey floor,
 * rubber matte and metal shiny, with shadows. A small ray caster in plain TypeScript, so the browser and
 * Node draw the same pixels from the same scene (no canvas, no WebGL); 2x2 samples per pixel.
 */
import { CAMERA, COLOR_RGB, IMAGE_HEIGHT, IMAGE_WIDTH, SIZE_RADIUS, type SceneObject, type Vec3, cameraFrame, dot3, normalize } from './scene';

export interface RenderedImage {
  readonly width: number;
  readonly height: number;
  /** RGBA, row by row. */
  readonly data: Uint8ClampedArray;
}

interface Hit {
  t: number;
  normal: Vec3;
  object: number; // -1: the floor
}

/** The key light comes from above, behind the camera's left shoulder. */
const LIGHT: Vec3 = normalize([-0.35, -0.8, 1.1]);
const FLOOR_RGB: Vec3 = [0.6, 0.6, 0.6];
const SKY_RGB: Vec3 = [0.7, 0.7, 0.7];
const SAMPLES = 2;

interface Solid {
  kind: SceneObject['shape'];
  center: Vec3;
  radius: number; // sphere, cylinder radius; cube half side
  cos: number;
  sin: number;
  rgb: Vec3;
  metal: boolean;
  /** The squared radius of a sphere around the solid: a ray that misses it misses the solid, so most rays skip the exact test. */
  bound2: number;
}

function solids(objects: readonly SceneObject[]): Solid[] {
  return objects.map((o) => {
    const r = SIZE_RADIUS[o.size];
    const theta = (o.rotation * Math.PI) / 180;
    const [cr, cg, cb] = COLOR_RGB[o.color];
    const radius = o.shape === 'cube' ? r / Math.SQRT2 : r;
    // Around a cube of half side h: h√3; a cylinder of radius and half height r: r√2 (a hair wider, for rounding).
    const bound = radius * (o.shape === 'cube' ? Math.sqrt(3) : o.shape === 'cylinder' ? Math.SQRT2 : 1) * (1 + 1e-6);
    return {
      kind: o.shape,
      center: o['3d_coords'],
      radius,
      bound2: bound * bound,
      cos: Math.cos(theta),
      sin: Math.sin(theta),
      rgb: [cr / 255, cg / 255, cb / 255],
      metal: o.material === 'metal',
    };
  });
}

function intersectSolid(s: Solid, o: Vec3, d: Vec3): { t: number; normal: Vec3 } | null {
  const ox = o[0] - s.center[0];
  const oy = o[1] - s.center[1];
  const oz = o[2] - s.center[2];
  // The bounding sphere first (d is a unit vector): missed, or wholly behind the ray's origin, is no hit.
  const bb = ox * d[0] + oy * d[1] + oz * d[2];
  const bc = ox * ox + oy * oy + oz * oz - s.bound2;
  if (bc > 0 && (bb > 0 || bb * bb < bc)) return null;
  if (s.kind === 'sphere') {
    const b = ox * d[0] + oy * d[1] + oz * d[2];
    const c = ox * ox + oy * oy + oz * oz - s.radius * s.radius;
    const disc = b * b - c;
    if (disc < 0) return null;
    const t = -b - Math.sqrt(disc);
    if (t <= 1e-4) return null;
    const px = ox + t * d[0];
    const py = oy + t * d[1];
    const pz = oz + t * d[2];
    return { t, normal: [px / s.radius, py / s.radius, pz / s.radius] };
  }
  if (s.kind === 'cylinder') {
    // Vertical cylinder: radius r, from z - r to z + r (height 2r).
    let best: { t: number; normal: Vec3 } | null = null;
    const a = d[0] * d[0] + d[1] * d[1];
    if (a > 1e-12) {
      const b = ox * d[0] + oy * d[1];
      const c = ox * ox + oy * oy - s.radius * s.radius;
      const disc = b * b - a * c;
      if (disc >= 0) {
        const t = (-b - Math.sqrt(disc)) / a;
        const z = oz + t * d[2];
        if (t > 1e-4 && Math.abs(z) <= s.radius) best = { t, normal: [(ox + t * d[0]) / s.radius, (oy + t * d[1]) / s.radius, 0] };
      }
    }
    if (Math.abs(d[2]) > 1e-12) {
      const t = (s.radius - oz) / d[2];
      const x = ox + t * d[0];
      const y = oy + t * d[1];
      if (t > 1e-4 && x * x + y * y <= s.radius * s.radius && (!best || t < best.t)) best = { t, normal: [0, 0, 1] };
    }
    return best;
  }
  // Cube: slab test in the cube's own frame (rotated about z).
  const lx = s.cos * ox + s.sin * oy;
  const ly = -s.sin * ox + s.cos * oy;
  const dx = s.cos * d[0] + s.sin * d[1];
  const dy = -s.sin * d[0] + s.cos * d[1];
  const lo = [lx, ly, oz];
  const ld = [dx, dy, d[2]];
  let tNear = -Infinity;
  let tFar = Infinity;
  let axis = 0;
  let sign = 1;
  for (let k = 0; k < 3; k++) {
    const dk = ld[k]!;
    const ok = lo[k]!;
    if (Math.abs(dk) < 1e-12) {
      if (Math.abs(ok) > s.radius) return null;
      continue;
    }
    let t1 = (-s.radius - ok) / dk;
    let t2 = (s.radius - ok) / dk;
    let enterSign = -1;
    if (t1 > t2) {
      [t1, t2] = [t2, t1];
      enterSign = 1;
    }
    if (t1 > tNear) {
      tNear = t1;
      axis = k;
      sign = enterSign;
    }
    tFar = Math.min(tFar, t2);
    if (tNear > tFar) return null;
  }
  if (tNear <= 1e-4) return null;
  // The face normal, rotated back to the world.
  const n: [number, number, number] = [0, 0, 0];
  n[axis] = sign;
  return { t: tNear, normal: [s.cos * n[0] - s.sin * n[1], s.sin * n[0] + s.cos * n[1], n[2]] };
}

function trace(scene: Solid[], o: Vec3, d: Vec3, skip = -2): Hit | null {
  let best: Hit | null = null;
  if (d[2] < -1e-9 && skip !== -1) {
    const t = -o[2] / d[2];
    if (t > 1e-4) best = { t, normal: [0, 0, 1], object: -1 };
  }
  for (let i = 0; i < scene.length; i++) {
    if (i === skip) continue;
    const hit = intersectSolid(scene[i]!, o, d);
    if (hit && (!best || hit.t < best.t)) best = { t: hit.t, normal: hit.normal, object: i };
  }
  return best;
}

function inShadow(scene: Solid[], p: Vec3, self: number): boolean {
  for (let i = 0; i < scene.length; i++) {
    if (i === self) continue;
    if (intersectSolid(scene[i]!, p, LIGHT)) return true;
  }
  return false;
}

function shade(scene: Solid[], o: Vec3, d: Vec3, depth: number): Vec3 {
  const hit = trace(scene, o, d);
  if (!hit) return SKY_RGB;
  const p: Vec3 = [o[0] + hit.t * d[0], o[1] + hit.t * d[1], o[2] + hit.t * d[2]];
  const n = hit.normal;
  const lambert = Math.max(0, dot3(n, LIGHT));
  const lit = lambert > 0 && !inShadow(scene, p, hit.object) ? 1 : 0;
  if (hit.object === -1) {
    // The floor darkens softly with distance from the centre, as CLEVR's studio backdrop does.
    const fade = 1 - Math.min(0.25, Math.hypot(p[0], p[1]) * 0.025);
    const light = (0.55 + 0.45 * lit * lambert) * fade;
    return [FLOOR_RGB[0] * light, FLOOR_RGB[1] * light, FLOOR_RGB[2] * light];
  }
  const s = scene[hit.object]!;
  const diffuse = 0.32 + 0.68 * lit * lambert;
  if (!s.metal) {
    // Rubber: matte, a faint broad highlight.
    const h = normalize([LIGHT[0] - d[0], LIGHT[1] - d[1], LIGHT[2] - d[2]]);
    const spec = lit * 0.08 * Math.pow(Math.max(0, dot3(n, h)), 8);
    return [s.rgb[0] * diffuse + spec, s.rgb[1] * diffuse + spec, s.rgb[2] * diffuse + spec];
  }
  // Metal: darker body, a sharp white highlight, and a reflection of the floor and the other objects.
  const h = normalize([LIGHT[0] - d[0], LIGHT[1] - d[1], LIGHT[2] - d[2]]);
  const spec = lit * 1.1 * Math.pow(Math.max(0, dot3(n, h)), 60);
  const dn = dot3(d, n);
  const r: Vec3 = [d[0] - 2 * dn * n[0], d[1] - 2 * dn * n[1], d[2] - 2 * dn * n[2]];
  const reflected = depth > 0 ? shade(scene, p, r, depth - 1) : SKY_RGB;
  const body = 0.55 * diffuse;
  return [s.rgb[0] * (body + 0.45 * reflected[0]) + spec, s.rgb[1] * (body + 0.45 * reflected[1]) + spec, s.rgb[2] * (body + 0.45 * reflected[2]) + spec];
}

/** What every row of one picture needs: the solids, the camera and the output. */
interface Canvas {
  readonly scene: Solid[];
  readonly frame: { forward: Vec3; right: Vec3; up: Vec3 };
  readonly focal: number;
  readonly width: number;
  readonly height: number;
  readonly samples: number;
  readonly data: Uint8ClampedArray;
}

function startCanvas(objects: readonly SceneObject[], width: number, height: number, samples: number): Canvas {
  return {
    scene: solids(objects),
    frame: cameraFrame(),
    focal: CAMERA.focalPixels * (width / IMAGE_WIDTH),
    width,
    height,
    samples,
    data: new Uint8ClampedArray(width * height * 4),
  };
}

function drawRow(canvas: Canvas, y: number): void {
  const { scene, frame, focal, width, height, samples, data } = canvas;
  const { forward, right, up } = frame;
  for (let x = 0; x < width; x++) {
    let rr = 0;
    let gg = 0;
    let bb = 0;
    for (let sy = 0; sy < samples; sy++) {
      for (let sx = 0; sx < samples; sx++) {
        const u = (x + (sx + 0.5) / samples - width / 2) / focal;
        const v = (y + (sy + 0.5) / samples - height / 2) / focal;
        const d = normalize([forward[0] + u * right[0] - v * up[0], forward[1] + u * right[1] - v * up[1], forward[2] + u * right[2] - v * up[2]]);
        const c = shade(scene, CAMERA.position, d, 1);
        rr += c[0];
        gg += c[1];
        bb += c[2];
      }
    }
    const k = samples * samples;
    const i = (y * width + x) * 4;
    data[i] = Math.round(255 * Math.min(1, rr / k));
    data[i + 1] = Math.round(255 * Math.min(1, gg / k));
    data[i + 2] = Math.round(255 * Math.min(1, bb / k));
    data[i + 3] = 255;
  }
}

/**
 * The scene drawn at 480x320 (CLEVR's pictures are 480x320) with `samples` x `samples` rays a pixel;
 * smaller and with one sample it is a quick preview (192x128 x 1 is 1/25 of the rays).
 */
export function renderScene(objects: readonly SceneObject[], width = IMAGE_WIDTH, height = IMAGE_HEIGHT, samples = SAMPLES): RenderedImage {
  const canvas = startCanvas(objects, width, height, samples);
  for (let y = 0; y < height; y++) drawRow(canvas, y);
  return { width, height, data: canvas.data };
}

/** A frame's budget at 60 Hz, less room for the work that waits: the longest a drawing slice may run. */
export const RENDER_SLICE_MS = 8;

export interface RenderSlicing {
  /** Milliseconds a slice may run before it hands the thread back. */
  readonly budgetMs?: number;
  readonly now: () => number;
  /** Lets other work run (in a worker: a zero-delay timer), then resolves. */
  readonly yieldToOthers: () => Promise<void>;
  /** Checked between slices: true stops the drawing (a newer scene is wanted), and null is returned. */
  readonly cancelled?: () => boolean;
}

/**
 * The same picture as renderScene, drawn a few rows at a time: after each row past the budget it yields,
 * so a chat reply queued on the same thread waits one slice at most, not the whole picture (about 0.2 s
 * for 10 objects here, and a minute for 1,000).
 */
export async function renderSceneInSlices(
  objects: readonly SceneObject[],
  slicing: RenderSlicing,
  width = IMAGE_WIDTH,
  height = IMAGE_HEIGHT,
  samples = SAMPLES,
): Promise<RenderedImage | null> {
  const budget = slicing.budgetMs ?? RENDER_SLICE_MS;
  const canvas = startCanvas(objects, width, height, samples);
  let sliceStart = slicing.now();
  for (let y = 0; y < height; y++) {
    drawRow(canvas, y);
    if (y + 1 < height && slicing.now() - sliceStart >= budget) {
      await slicing.yieldToOthers();
      if (slicing.cancelled?.()) return null;
      sliceStart = slicing.now();
    }
  }
  return { width, height, data: canvas.data };
}

/** Which object (index) is drawn at a pixel, -1 for the floor: the page's highlight and tests use it. */
export function objectAtPixel(objects: readonly SceneObject[], x: number, y: number): number {
  const { forward, right, up } = cameraFrame();
  const u = (x + 0.5 - IMAGE_WIDTH / 2) / CAMERA.focalPixels;
  const v = (y + 0.5 - IMAGE_HEIGHT / 2) / CAMERA.focalPixels;
  const d = normalize([forward[0] + u * right[0] - v * up[0], forward[1] + u * right[1] - v * up[1], forward[2] + u * right[2] - v * up[2]]);
  return trace(solids(objects), CAMERA.position, d)?.object ?? -1;
}
