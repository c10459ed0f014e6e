import { type ChatMessage, VIDEO_SHEET_COLUMNS, type VideoAnswerMeta, type VideoElement } from '../../shared/conversation';
import { useImageUrl } from '../../shared/ui/useImageUrl';
import { avsdModelName } from '../../engine/video/avsdModels';
import { DetectionOverlay } from './DetectionOverlay';

/** The video of the latest exchange: the one just shared, or the one the last reply answered a question about. */
export function latestVideo(messages: readonly ChatMessage[]): { video: VideoElement; answer: VideoAnswerMeta | null } | null {
  const last = messages[messages.length - 1];
  if (!last) return null;
  const answer = last.reply?.video ?? null;
  const videos = messages.flatMap((m) => m.elements.filter((e): e is VideoElement => e.kind === 'video'));
  if (answer) {
    const video = videos.find((v) => v.videoId === answer.videoId);
    return video ? { video, answer } : null;
  }
  let turn = messages.length - 1;
  while (turn >= 0 && messages[turn]!.role !== 'user') turn--;
  const video = turn >= 0 ? messages[turn]!.elements.find((e): e is VideoElement => e.kind === 'video') : undefined;
  return video ? { video, answer: null } : null;
}

function Frames({ video }: { video: VideoElement }) {
  const sheet = useImageUrl(video.sheetId);
  const frames = video.analysis?.frames ?? [];
  const rows = Math.ceil(frames.length / VIDEO_SHEET_COLUMNS);
  return (
    <ol className="grid grid-cols-4 gap-1" aria-label="Sampled frames">
      {frames.map((frame, i) => {
        const objects = frame.detections?.objects ?? [];
        const seen = [...objects.map((o) => o.label), ...frame.shapes.map((s) => s.label)];
        return (
          <li key={i} className="flex flex-col gap-0.5" data-testid="video-frame">
            <div
              className="relative w-full overflow-hidden rounded border border-slate-200 bg-slate-200"
              style={{
                aspectRatio: `${video.width} / ${video.height}`,
                backgroundImage: sheet ? `url(${sheet})` : undefined,
                backgroundSize: `${VIDEO_SHEET_COLUMNS * 100}% ${rows * 100}%`,
                backgroundPosition: `${VIDEO_SHEET_COLUMNS > 1 ? ((i % VIDEO_SHEET_COLUMNS) / (VIDEO_SHEET_COLUMNS - 1)) * 100 : 0}% ${rows > 1 ? (Math.floor(i / VIDEO_SHEET_COLUMNS) / (rows - 1)) * 100 : 0}%`,
              }}
              role="img"
              aria-label={`Frame at ${frame.time.toFixed(1)} s: ${seen.length > 0 ? seen.join(', ') : 'nothing found'}`}
            >
              {frame.detections && <DetectionOverlay detections={frame.detections} />}
            </div>
            <span className="text-[11px] leading-tight text-slate-700">
              {frame.time.toFixed(1)} s · {seen.length > 0 ? seen.join(', ') : '—'}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

/** Loudness (dBFS, -60 to 0) and Silero VAD's speech probability over the clip, as two lines. */
function AudioTrack({ video }: { video: VideoElement }) {
  const timeline = video.analysis?.timeline;
  if (!video.hasAudio || !timeline)
    return (
      <p className="text-sm text-slate-700" data-testid="audio-track">
        No sound track.
      </p>
    );
  const n = Math.max(1, timeline.loudnessDb.length - 1);
  const line = (values: readonly number[], y: (v: number) => number) => values.map((v, i) => `${((i / n) * 300).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const loudY = (db: number) => 60 - Math.max(0, Math.min(60, db + 60));
  const speechY = (p: number) => 60 - 60 * p;
  const speechFrames = timeline.speech.filter((p) => p > 0.5).length;
  return (
    <figure className="flex flex-col gap-1" data-testid="audio-track">
      <svg
        viewBox="0 0 300 60"
        className="h-20 w-full rounded border border-slate-200 bg-white"
        role="img"
        aria-label={`Sound over ${video.seconds.toFixed(1)} s: loudness and speech probability`}
      >
        <polyline points={line(timeline.loudnessDb, loudY)} fill="none" stroke="#0f766e" strokeWidth="1.2" />
        {timeline.speech.length > 0 && (
          <polyline points={line(timeline.speech, speechY)} fill="none" stroke="#b45309" strokeWidth="1.2" strokeDasharray="3 2" />
        )}
      </svg>
      <figcaption className="text-xs text-slate-700">
        <span className="text-teal-700">— loudness</span> (−60 to 0 dBFS) ·{' '}
        {video.analysis?.speechChecked ? (
          <>
            <span className="text-amber-700">- - speech</span> (Silero VAD): {((100 * speechFrames) / Math.max(1, timeline.speech.length)).toFixed(0)}% of the
            time
          </>
        ) : (
          'speech not checked (the voice-activity model is missing)'
        )}
      </figcaption>
    </figure>
  );
}

export function VideoDetails({ video, answer }: { video: VideoElement; answer: VideoAnswerMeta | null }) {
  return (
    <section aria-labelledby="inspector-video" className="flex flex-col gap-3" data-testid="inspector-video">
      <h3 id="inspector-video" className="font-semibold">
        Video · {video.seconds.toFixed(1)} s
      </h3>
      {video.analysis?.check === 'unfit' ? (
        // Nothing of it is shown here, not even its frames: the photo check called one of them unfit.
        <p className="text-sm" data-testid="inspector-video-unfit">
          Not watched: the photo check called one of its sampled frames unfit for a public screen, so it was neither described nor answered about.
        </p>
      ) : (
        <p className="text-sm">{video.description ?? 'Not watched yet.'}</p>
      )}
      {video.analysis && video.analysis.check !== 'unfit' && (
        <>
          <p className="text-xs text-slate-700">
            {video.analysis.frames.length} frames sampled evenly
            {video.analysis.detectorUsed ? ', each through the object detector (boxes) and the image tower' : ' (no object detector loaded)'}; coloured shapes
            found in each are listed under it.
          </p>
          <Frames video={video} />
          <AudioTrack video={video} />
        </>
      )}
      {answer?.answeredFrom === 'frames' && (
        <h4 className="text-sm font-semibold">“{answer.question}” · answered from what the object detector found in the frames, not by a ranker</h4>
      )}
      {answer?.answeredFrom === 'ranker' && (
        <div className="flex flex-col gap-1">
          <h4 className="text-sm font-semibold">
            “{answer.question}” · {avsdModelName(answer.model)} ranker · top 10 of {answer.candidateCount} candidates
          </h4>
          <ol className="flex flex-col gap-0.5 text-sm" data-testid="video-candidates">
            {answer.candidates.slice(0, 10).map((c, i) => (
              <li key={i} className="flex justify-between gap-2">
                <span>
                  {i + 1}. {c.text}
                </span>
                <span className="tabular-nums text-slate-700">{c.score.toFixed(2)}</span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}
