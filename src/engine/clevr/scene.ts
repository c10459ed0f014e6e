/**
 * CLEVR scene graphs (Johnson et al., CVPR 2017), the ground truth CLEVR-Dialog's grammar talks about:
 * objects with a shape, colour, material and size on a floor, their 3-D positions, and the four
 * spatial relations computed from them along the camera's directions.
 */
import { randomPick, seededRandom } from '../random';

export const SHAPES = ['cube', 'sphere', 'cylinder'] as const;
export const COLORS = ['gray', 'red', 'blue', 'green', 'brown', 'purple', 'cyan', 'yellow'] as const;
export const MATERIALS = ['rubber', 'metal'] as const;
export const SIZES = ['small', 'large'] as const;
export const RELATIONS = ['left', 'right', 'front', 'behind'] as const;

type Shape = (typeof SHAPES)[number];
export type Color = (typeof COLORS)[number];
type Material = (typeof MATERIALS)[number];
export type Size = (typeof SIZES)[number];
export type Relation = (typeof RELATIONS)[number];
export type AttributeName = 'shape' | 'color' | 'material' | 'size';
export const ATTRIBUTE_NAMES: readonly AttributeName[] = ['size', 'color', 'material', 'shape'];
export const ATTRIBUTE_VALUES: { readonly [A in AttributeName]: readonly string[] } = {
  shape: SHAPES,
  color: COLORS,
  material: MATERIALS,
  size: SIZES,
};

export type Vec3 = readonly [number, number, number];

export interface SceneObject {
  readonly shape: Shape;
  readonly color: Color;
  readonly material: Material;
  readonly size: Size;
  /** Position on the floor plane (x, y) and height of the centre (z), in CLEVR's world units. */
  readonly '3d_coords': Vec3;
  /** Rotation about the vertical axis, degrees. */
  readonly rotation: number;
  /** The centre's image position (x, y) and its depth from the camera. */
  readonly pixel_coords: Vec3;
}

export interface Scene {
  readonly split: string;
  readonly image_index: number;
  readonly image_filename: string;
  readonly objects: readonly SceneObject[];
  /** relationships[r][i]: the objects that lie in direction r of object i (CLEVR's convention). */
  readonly relationships: { readonly [R in Relation]: readonly (readonly number[])[] };
  readonly directions: { readonly [R in Relation | 'above' | 'below']: Vec3 };
}

/** CLEVR's RGB values for its eight colours. */
export const COLOR_RGB: { readonly [C in Color]: readonly [number, number, number] } = {
  gray: [87, 87, 87],
  red: [173, 35, 35],
  blue: [42, 75, 215],
  green: [29, 105, 20],
  brown: [129, 74, 25],
  purple: [129, 38, 192],
  cyan: [41, 208, 208],
  yellow: [255, 238, 51],
};

/** The radius CLEVR scales each size to; a cube's half side is this over sqrt(2). */
export const SIZE_RADIUS: { readonly [S in Size]: number } = { small: 0.35, large: 0.7 };

export const IMAGE_WIDTH = 480;
export const IMAGE_HEIGHT = 320;

/**
 * The camera: CLEVR's base position, looking at the origin, with Blender's default 35 mm lens on a
 * 32 mm sensor (49.1 degrees across). "behind" points away from it along the floor, "right" to its right.
 */
export const CAMERA = {
  position: [7.48, -6.51, 5.34] as Vec3,
  target: [0, 0, 0] as Vec3,
  focalPixels: IMAGE_WIDTH / 2 / Math.tan((49.13 * Math.PI) / 360),
};

function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
export function dot3(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
export function normalize(a: Vec3): Vec3 {
  const n = Math.hypot(a[0], a[1], a[2]);
  return [a[0] / n, a[1] / n, a[2] / n];
}

/** The camera's orthonormal frame: forward, right and up. */
export function cameraFrame(): { forward: Vec3; right: Vec3; up: Vec3 } {
  const forward = normalize(sub(CAMERA.target, CAMERA.position));
  const right = normalize(cross(forward, [0, 0, 1]));
  const up = cross(right, forward);
  return { forward, right, up };
}

/** The floor directions a CLEVR scene file records, derived from the camera as CLEVR does. */
export function sceneDirections(): Scene['directions'] {
  const { forward, right } = cameraFrame();
  const behind = normalize([forward[0], forward[1], 0]);
  const r = normalize([right[0], right[1], 0]);
  return {
    behind,
    front: [-behind[0], -behind[1], 0],
    right: r,
    left: [-r[0], -r[1], 0],
    above: [0, 0, 1],
    below: [0, 0, -1],
  };
}

/** Where a world point lands in the picture: x, y in pixels and its depth along the camera's axis. */
export function projectToImage(point: Vec3): Vec3 {
  const { forward, right, up } = cameraFrame();
  const v = sub(point, CAMERA.position);
  const depth = dot3(v, forward);
  const x = IMAGE_WIDTH / 2 + (CAMERA.focalPixels * dot3(v, right)) / depth;
  const y = IMAGE_HEIGHT / 2 - (CAMERA.focalPixels * dot3(v, up)) / depth;
  return [Math.round(x), Math.round(y), Math.round(depth * 1e4) / 1e4];
}

/** About how far an object reaches from its centre in the picture, in pixels (for highlighting it). */
export function objectRadiusPixels(object: SceneObject): number {
  const depth = Math.max(1, object.pixel_coords[2]);
  return Math.round((CAMERA.focalPixels * SIZE_RADIUS[object.size] * 1.25) / depth);
}

/** CLEVR's margin: a pair closer than this along a direction is in neither relation. */
const RELATION_EPSILON = 0.2;

/** relationships[r][i] = objects j with (pos_j - pos_i) . dir_r > epsilon (CLEVR's compute_all_relationships). */
export function computeRelationships(objects: readonly Pick<SceneObject, '3d_coords'>[], directions = sceneDirections()): Scene['relationships'] {
  const out = {} as { [R in Relation]: number[][] };
  for (const relation of RELATIONS) {
    const dir = directions[relation];
    out[relation] = objects.map((a, i) => objects.flatMap((b, j) => (j !== i && dot3(sub(b['3d_coords'], a['3d_coords']), dir) > RELATION_EPSILON ? [j] : [])));
  }
  return out;
}

/**
 * The most objects a scene may hold: CLEVR's generator places 3 to 10 (render_images.py, --max_objects 10).
 * Drawing and the relations grow with the objects (the relations with their square), so a file with more
 * is refused rather than drawn.
 */
export const MAX_SCENE_OBJECTS = 10;

export interface SceneOptions {
  readonly minObjects?: number;
  readonly maxObjects?: number;
  readonly split?: string;
}

/**
 * A random scene as CLEVR's generator makes one: 3 to 10 objects on [-3, 3]^2, apart by at least their
 * radii plus 0.25, and with every pair at least 0.4 apart along left/right and front/behind, so each
 * relation a question asks about is clear in the picture. Deterministic for a seed.
 */
export function generateScene(seed: number, index: number, options: SceneOptions = {}): Scene {
  const random = seededRandom(seed * 1_000_003 + index);
  const directions = sceneDirections();
  const min = options.minObjects ?? 3;
  const max = options.maxObjects ?? MAX_SCENE_OBJECTS;
  for (let attempt = 0; ; attempt++) {
    const count = min + Math.floor(random() * (max - min + 1));
    const objects: SceneObject[] = [];
    let tries = 0;
    while (objects.length < count && tries < 400) {
      tries++;
      const size = randomPick(random, SIZES);
      const radius = SIZE_RADIUS[size];
      const shape = randomPick(random, SHAPES);
      const x = -3 + 6 * random();
      const y = -3 + 6 * random();
      const ok = objects.every((o) => {
        const [ox, oy] = o['3d_coords'];
        const dx = x - ox;
        const dy = y - oy;
        if (Math.hypot(dx, dy) - radius - SIZE_RADIUS[o.size] < 0.25) return false;
        for (const r of ['left', 'behind'] as const) {
          const d = dx * directions[r][0] + dy * directions[r][1];
          if (Math.abs(d) < 0.4) return false;
        }
        return true;
      });
      if (!ok) continue;
      const height = shape === 'cube' ? radius / Math.SQRT2 : radius;
      const coords: Vec3 = [round4(x), round4(y), round4(height)];
      objects.push({
        shape,
        color: randomPick(random, COLORS),
        material: randomPick(random, MATERIALS),
        size,
        '3d_coords': coords,
        rotation: round4(360 * random()),
        pixel_coords: projectToImage(coords),
      });
    }
    // Crowded draws that could not place every object are drawn again, as CLEVR's generator does.
    if (objects.length === count || attempt > 20) {
      return {
        split: options.split ?? 'generated',
        image_index: index,
        image_filename: sceneImageName(options.split ?? 'generated', index),
        objects,
        relationships: computeRelationships(objects, directions),
        directions,
      };
    }
  }
}

function sceneImageName(split: string, index: number): string {
  return `CLEVR_${split}_${String(index).padStart(6, '0')}.png`;
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
