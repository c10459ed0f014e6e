/** A box in the pixels of the image that was shared (not the detector's 512 x 512 input). */
export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** One object the detector found, after non-maximum suppression. */
export interface Detection {
  /** 0-based index into COCO_CLASSES. */
  classIndex: number;
  /** The COCO class name, e.g. "dog", "tennis racket". */
  label: string;
  /** The detector's confidence, 0..1. */
  score: number;
  box: Box;
}

/** What the detector saw in one image, strongest first. */
export interface DetectionResult {
  width: number;
  height: number;
  detections: Detection[];
}
