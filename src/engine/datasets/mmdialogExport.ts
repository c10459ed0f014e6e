import type { DialogueRecord } from './mmdialog';

/** Writing dialogue records back in MMDialog's format, and counting what a set of them holds. */

/** The record as MMDialog writes it, for export. */
export type MmdialogElementJson = { __TEXT__: string } | { __MEDIA__: string };
export interface MmdialogRecordJson {
  conversation_id: number | string;
  conversation: { turn: MmdialogElementJson[] }[];
  negative_candidate_media_keys?: string[];
  negative_candidate_texts?: string[];
}

/** Writes a record the way MMDialog does, so an exported conversation reads back through parseConversations. */
export function toMmdialogRecord(record: DialogueRecord): MmdialogRecordJson {
  // MMDialog's ids are numbers; ids that came from numbers go back as numbers.
  const numeric = /^(0|[1-9]\d*)$/.test(record.id) && Number.isSafeInteger(Number(record.id));
  const out: MmdialogRecordJson = {
    conversation_id: numeric ? Number(record.id) : record.id,
    conversation: record.turns.map((turn) => ({
      turn: turn.elements.map((element): MmdialogElementJson => (element.kind === 'text' ? { __TEXT__: element.text } : { __MEDIA__: element.key })),
    })),
  };
  if (record.negativeMediaKeys) out.negative_candidate_media_keys = [...record.negativeMediaKeys];
  if (record.negativeTexts) out.negative_candidate_texts = [...record.negativeTexts];
  return out;
}

export interface DialogueStats {
  dialogues: number;
  turns: number;
  /** Turns with at least one image element. */
  turnsWithImage: number;
  elements: { text: number; media: number };
  /** 0 when there are no dialogues. */
  minTurns: number;
  maxTurns: number;
}

export function dialogueStats(records: readonly DialogueRecord[]): DialogueStats {
  const stats: DialogueStats = { dialogues: records.length, turns: 0, turnsWithImage: 0, elements: { text: 0, media: 0 }, minTurns: 0, maxTurns: 0 };
  records.forEach((record, index) => {
    const n = record.turns.length;
    stats.turns += n;
    stats.minTurns = index === 0 ? n : Math.min(stats.minTurns, n);
    stats.maxTurns = Math.max(stats.maxTurns, n);
    for (const turn of record.turns) {
      let image = false;
      for (const element of turn.elements) {
        stats.elements[element.kind]++;
        if (element.kind === 'media') image = true;
      }
      if (image) stats.turnsWithImage++;
    }
  });
  return stats;
}
