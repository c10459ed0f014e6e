import { RegExpMatcher, englishDataset, englishRecommendedTransformers } from 'obscenity';

/**
 * What a public booth must not say or play along with, as one list per category: what a visitor types
 * is checked against them before any ranking (visitorScreen.ts), and the texts of other people's
 * conversations against them before they enter the pool (boothFilter.ts).
 *
 * Profanity and slurs are `obscenity`'s English set (a maintained matcher that also sees through
 * "f*ck" and "sh1t"), its words sorted into the categories below. Everything else is written here: no
 * maintained package covers requests, threats or personal data, and these lists are short enough to
 * read and test. The patterns read the screen form of a text (screenForm): lower case, no accents or
 * apostrophes, words separated by single spaces.
 */
export const SCREEN_CATEGORY_IDS = ['self-harm', 'violence', 'sexual', 'hate', 'drugs', 'personal-data', 'insults', 'politics'] as const;
export type ScreenCategoryId = (typeof SCREEN_CATEGORY_IDS)[number];

interface ScreenCategory {
  /** What the Inspector and the pool's report call it. */
  readonly label: string;
  /** A text that says this is flagged, wherever it comes from: a visitor's message or a pool text. */
  readonly says: readonly RegExp[];
  /** Only a visitor's message is flagged for these (a request such as "what's your address"). */
  readonly asks?: readonly RegExp[];
  /** Read on the text as typed (digits and their separators): phone and card numbers. */
  readonly raw?: readonly RegExp[];
  /** Borderline: dropped from the pool only under booth strictness (kiosk mode). */
  readonly borderline?: readonly RegExp[];
  /** obscenity's English words that fall in this category. */
  readonly obscenityWords?: readonly string[];
  /** Whether a visitor's message is screened for it: politics only keeps opinions out of the pool. */
  readonly visitor: boolean;
}

/** Words joined into one alternation, for lists too long for one line. */
const anyOf = (words: readonly string[]) => words.join('|');

const PEOPLE = anyOf([
  'someone',
  'somebody',
  'some one',
  'people',
  'him',
  'her',
  'them',
  'you',
  'u',
  'everyone',
  'everybody',
  'a (?:man|woman|person|child|kid|girl|boy|cop|police officer)',
  'the (?:president|teacher|police|neighbou?rs?)',
  'my (?:wife|husband|mom|mum|mother|dad|father|brother|sister|boss|teacher|neighbou?rs?|friends?|girlfriend|boyfriend|ex|family|kids?|son|daughter|classmates?|roommate|parents)',
  'his (?:wife|girlfriend)',
  'th(?:at|is|ose|ese) (?:guy|girl|man|woman|kid|dude|person|people|bitch|bastard)',
  'her (?:husband|boyfriend)',
]);
const HARM_VERBS =
  'kill|killed|killing|kills|murder|murdered|murdering|stab|stabbed|stabbing|shoot|shot|shooting|strangle|strangling|poison|poisoning|torture|torturing|attack|attacking|assault|assaulting|rape|raped|raping|kidnap|kidnapping|choke|choking|behead|slaughter|beat up|beating up|punch|punching';
/** What "kill" and "shoot" also take in everyday talk: "kill time", "shoot you a text". */
const NOT_HARMED = String.raw`(?! (?:time|it|the (?:lights?|engine|mood|vibe|game|music)|bugs?|weeds?|ants|flies|mosquito(?:e)?s|germs|bacteria|(?:a |the )?process(?:es)?|zombies|monsters|(?:a |an )?(?:text|message|email|e mail|note|line|call|look|smile|photo|pic|picture)))`;
const GROUPS = anyOf([
  'immigrants?',
  'migrants?',
  'refugees?',
  'foreigners?',
  'muslims?',
  'jews?',
  'jewish people',
  'christians?',
  'arabs?',
  'mexicans?',
  'chinese(?: people)?',
  'asians?',
  'blacks?',
  'black people',
  'whites?',
  'white people',
  'gays?',
  'gay people',
  'lesbians?',
  'homosexuals?',
  'trans people',
  'transgender people',
  'women',
  'girls',
  'men',
  'indians?',
  'africans?',
  'gypsies',
  'disabled people',
  'poor people',
]);
const CONTEMPT = anyOf([
  'stupid',
  'inferior',
  'animals',
  'vermin',
  'terrorists?',
  'criminals?',
  'disgusting',
  'evil',
  'subhuman',
  'trash',
  'filth',
  'filthy',
  'rapists?',
  'parasites?',
  'dirty',
  'lazy',
  'thieves',
  'scum',
  'idiots',
  'dumb',
  'worthless',
  'a disease',
  'a plague',
  'not human',
  'less than human',
]);
const ASKING = 'whats|what is|give me|tell me|send me|share|can i have|can i get|may i have|could i have|i need|i want|gimme|drop';
const PRIVATE_DETAILS = anyOf([
  '(?:phone |cell |mobile |telephone )?number',
  '(?:home |house |street |email |e mail |mailing )?address',
  'email',
  'e mail',
  'password',
  'passcode',
  'pin(?: code| number)?',
  'credit card(?: number| details)?',
  'card (?:number|details)',
  'bank (?:details|account)(?: number)?',
  'social security(?: number)?',
  'ssn',
  'passport(?: number)?',
  'ip address',
  'location',
  'snapchat',
  'instagram',
  'whatsapp',
]);
const DRUGS = anyOf([
  'cocaine',
  'heroin',
  'meth',
  'methamphetamine',
  'crystal meth',
  'fentanyl',
  'lsd',
  'mdma',
  'ketamine',
  'shrooms',
  'magic mushrooms',
  'weed',
  'marijuana',
  'cannabis',
  'crack cocaine',
  'crack pipe',
  'opium',
  'oxycontin',
  'oxycodone',
  'pot brownies?',
  'ecstasy pills?',
  'drug dealers?',
]);
const INSULT_WORDS = anyOf([
  'idiot',
  'moron',
  'imbecile',
  'loser',
  'stupid',
  'dumb',
  'ugly',
  'fat',
  'worthless',
  'pathetic',
  'useless',
  'trash',
  'garbage',
  'scum',
  'dumbass',
  'jerk',
  'freak',
  'creep',
  'psycho',
  'piece of (?:trash|garbage|crap|junk)',
]);
/** Insults that stand alone after "you" ("you idiot"); an adjective needs "you are" ("makes you fat" is no insult). */
const INSULT_NOUNS = anyOf([
  'idiot',
  'moron',
  'imbecile',
  'loser',
  'dumbass',
  'jerk',
  'freak',
  'creep',
  'psycho',
  'scum',
  'lost cause',
  'piece of (?:trash|garbage|crap|junk)',
]);
/** Words that make a sentence about a politician an opinion. */
const OPINION =
  'think|thinks|thought|good thing|bad thing|good job|great job|good leader|bad leader|sad|support|supports|supporters?|idolize|blame|blamed|fault|proud|shame|shameful|embarrassing|dumb|weird|fair|unfair|i think|i believe|should|shouldnt|should ve|shouldve|hate|hated|love|loved|best|worst|terrible|awful|horrible|stupid|idiot|idiots|crazy|disgrace|disgusting|great|amazing|genius|corrupt|liar|lies|evil|deserves?|fan of|hilarious|ridiculous|pathetic|agree|disagree';
/** A politician's name, possessive too: the screen form drops the apostrophe ("Trump's" is read "trumps"). */
const POLITICIANS =
  '(?:obama|trump|biden|clinton|hillary|putin|kamala|pelosi|reagan|nixon|jfk|fdr|trudeau|modi|macron|merkel|thatcher|boris johnson|pence|mcconnell|schumer|bernie sanders|ted cruz|xi jinping|kim jong un|erdogan|netanyahu|bolsonaro|george w bush|george bush)s?';

export const SCREEN_CATEGORIES: Readonly<Record<ScreenCategoryId, ScreenCategory>> = {
  'self-harm': {
    label: 'self-harm and suicide',
    visitor: true,
    says: [
      /\b(?:kill|killing|hurt|hurting|harm|harming|hang|hanging|starve|starving) (?:my ?self|myself)\b/,
      /\b(?:cut|cutting) (?:my ?self|myself|my wrists?|my arms?)\b(?! (?:shaving|while|on|with|cooking|by accident|accidentally|opening|chopping))/,
      /\bsuicid(?:e|al)\b/,
      /\bself ?harm/,
      /\b(?:end|ending|take|taking) (?:it all|my (?:own )?life)\b/,
      /\b(?:want|wanted|wanna|going|ready) (?:to )?die\b(?! (?:of|laughing|from|for|happy|old|young|rich|in (?:my|your) sleep))/,
      /\bwish i (?:was|were) (?:dead|never born)\b/,
      /\bbetter off (?:dead|without me)\b/,
      /\b(?:dont|do not|no longer) want to (?:live|be alive|exist|wake up)\b(?! (?:there|here|in|with|near|on|at|like|by|alone|together|so))/,
      /\bno reason to (?:live|go on)\b/,
      /\boverdos(?:e|ed|ing)\b/,
      /\bslit(?:ting)? my wrists?\b/,
      /\bjump(?:ing)? off (?:a|the) (?:bridge|building|roof|cliff)\b/,
    ],
  },
  violence: {
    label: 'violence against people',
    visitor: true,
    says: [
      new RegExp(String.raw`\b(?:${HARM_VERBS}) (?:${PEOPLE})\b${NOT_HARMED}`),
      /\b(?:hurt|hurting|harm|harming) (?:someone|somebody|people|everyone|everybody|other people|others)\b/,
      new RegExp(
        String.raw`\b(?:how (?:do|can|could|would|should|to) (?:i |you |we |one |someone )?|(?:best|easiest|quickest|fastest|simplest) way to |help me |teach me (?:how )?to )(?:${HARM_VERBS}|hurt|harm|make a bomb|build a bomb|get away with)\b${NOT_HARMED}`,
      ),
      /\b(?:make|build|making|building) (?:a |an )?(?:pipe )?(?:bomb|explosives?|molotov)\b/,
      /\b(?:school|mass) shooting\b/,
      /\bshoot(?: up)? (?:the |my |a )?(?:school|church|mosque|synagogue|mall|office|class)\b/,
      /\bgo on a (?:killing|shooting) spree\b/,
      /\b(?:kill|hurt) (?:your ?self|yourself)\b|\bkys\b/,
      /\b(?:i ll|ill|i will|im going to|i am going to|gonna) (?:find you and )?(?:kill|hurt|stab|shoot|murder|beat (?:you|u) up)\b(?! (?:you |u )?(?:a |an )?(?:text|message|email|e mail|note|line|call|look|photo|pic|picture|time|it)\b)/,
      new RegExp(String.raw`\bfeel like (?:killing|hurting|murdering|stabbing|shooting)\b${NOT_HARMED}`),
    ],
    obscenityWords: ['rape'],
  },
  sexual: {
    label: 'sexual requests and content',
    visitor: true,
    says: [
      /\bnudes?\b|\bnud[sz]\b|\bnoodz\b|\bnudez\b/,
      /\bnaked\b(?! (?:eye|flames?|truth|ape|light|bulb))/,
      /\btopless\b/,
      /\bsexy\b/,
      /\bsext(?:ing|s)?\b/,
      /\bhorny\b/,
      /\berotic\b/,
      /\bxxx\b/,
      /\bonlyfans\b/,
      /\bstrip ?club\b|\blap ?dance\b|\bstripper\b|\bstriptease\b/,
      // Undressing needs "off": "my brother took my shirt" is not sexual.
      /\b(?:take|taking|took) off (?:your|ur|her|his|my) (?:clothes|top|shirt|pants|bra)\b/,
      /\b(?:take|taking|took) (?:your|ur|her|his|my) (?:clothes|top|shirt|pants|bra) off\b/,
      /\bin bed with (?:me|you|u)\b|\bwant you in (?:my )?bed\b/,
      /\b(?:sleep|slept|sleeping) with (?:me|you|u)\b|\b(?:sleep|sleeping) together\b/,
      /\bmake love\b|\bmaking love\b/,
      /\b(?:have|having|had|wanna have) sex\b/,
      /\bhook ?up with (?:me|you|u)\b/,
      /\bnipples?\b|\bbooty call\b|\bsexual(?:ly)?\b|\bkinky\b|\bfetish\b|\blingerie\b|\bpanties\b/,
      /\bsit on my (?:face|lap)\b/,
    ],
    obscenityWords: [
      'anal',
      'anus',
      'bestiality',
      'blowjob',
      'boob',
      'buttplug',
      'cock',
      'cum',
      'deepthroat',
      'dildo',
      'doggystyle',
      'double penetration',
      'ejaculate',
      'felch',
      'fellatio',
      'finger bang',
      'fisting',
      'gangbang',
      'handjob',
      'hentai',
      'hooker',
      'incest',
      'jerk off',
      'jizz',
      'lubejob',
      'masturbate',
      'orgasm',
      'orgy',
      'penis',
      'porn',
      'pussy',
      'scat',
      'semen',
      'sex',
      'slut',
      'tit',
      'vagina',
      'wank',
      'whore',
    ],
  },
  hate: {
    label: 'hate',
    visitor: true,
    says: [
      /\b(?:heil hitler|sieg heil|white (?:power|pride|supremacy|supremacist)|kkk|1488|gas the)\b/,
      /\bhitler (?:was|is) (?:right|good|great|a hero)\b|\bnazis? (?:are|were) (?:right|good)\b/,
      new RegExp(String.raw`\bi (?:hate|despise|cant stand) (?:all )?(?:the )?(?:${GROUPS})\b`),
      new RegExp(String.raw`\b(?:all )?(?:${GROUPS}) (?:are|r|is) (?:all |just |so |such )?(?:${CONTEMPT})\b`),
      new RegExp(
        String.raw`\b(?:${GROUPS}) should (?:all )?(?:be (?:deported|killed|shot|gassed|banned|locked up|sent back|exterminated)|die|go back|get out)\b`,
      ),
      new RegExp(String.raw`\b(?:${GROUPS}) (?:control|run|own) (?:the )?(?:world|media|banks?|everything|government)\b`),
      new RegExp(String.raw`\b(?:deport|ban|kill|exterminate) (?:all )?(?:the |those )?(?:${GROUPS})\b`),
      /\b(?:women|girls) belong in the kitchen\b/,
    ],
    obscenityWords: [
      'abo',
      'abeed',
      'africoon',
      'arabush',
      'boonga',
      'chingchong',
      'chink',
      'dyke',
      'fag',
      'kike',
      'negro',
      'nigger',
      'retard',
      'spastic',
      'tranny',
    ],
  },
  drugs: {
    label: 'drugs and getting drunk',
    visitor: true,
    says: [
      new RegExp(String.raw`\b(?:${DRUGS})\b`),
      /\b(?:get|getting|got|gets) (?:really |so |very )?(?:high|stoned|baked|wasted|hammered|smashed|plastered|trashed|drunk)\b(?! (?:scores?|marks|grades|enough|up|ground|speed|quality|ratings?|reviews?|prices?))/,
      /\bsmok(?:e|ed|ing) (?:some |a )?(?:weed|pot|crack|joints?|blunts?|dope)\b/,
      /\b(?:buy|buying|sell|selling|do|doing|take|taking|on|illegal|hard|recreational) drugs\b/,
      /\bsnort(?:ing|ed)?\b|\bblackout drunk\b|\bbinge drink(?:ing)?\b|\bdrunk driv(?:ing|er)\b/,
      // Drinking heavily: "drinking all night", "at least 10 drinks".
      /\bdrinking all (?:night|day)\b|\b(?:\d{2,}|[5-9]|five|six|seven|eight|nine|ten|a dozen|a lot of) (?:drinks|beers|shots|glasses of (?:wine|whisky|whiskey|vodka))\b/,
    ],
    borderline: [
      /\b(?:beer|beers|wine|vodka|whisky|whiskey|booze|alcohol|drunk|tipsy|hangover|hungover|cocktails?|liquor|shots|tequila|rum|gin|champagne|pub|drinking)\b/,
    ],
  },
  'personal-data': {
    label: 'personal data',
    visitor: true,
    says: [
      /\b(?:my|his|her) (?:phone |cell |mobile |home )?(?:number|address|password|pin|credit card|card number|social security number|ssn) is \S/,
      /\b\d{2,5} (?:[a-z]+ ){1,2}(?:street|avenue|boulevard)\b/,
    ],
    asks: [
      new RegExp(String.raw`\b(?:${ASKING}) (?:me )?(?:your|ur|yr) (?:${PRIVATE_DETAILS})\b`),
      // "Where do you live?" is not here: the demo answers it truly about itself ("in this browser tab", aboutTheDemo.ts).
      /\bwhats? your (?:home|house)\b|\bwhat (?:street|city|town) do (?:you|u) live (?:in|on)\b/,
      /\bcan i (?:call|text|visit|meet) you\b/,
    ],
    raw: [
      // A phone number: (555) 867-5309, 555-867-5309, +44 20 7946 0958, 555-1234.
      /(?:\+\d{1,3}[\s.-]?)?\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b|\b\d{3}[.-]\d{4}\b|\+\d{1,3}(?:[\s.-]?\d{2,4}){3,5}\b/,
      // A street address as typed, with capitals: 221 Baker Street, 1600 Pennsylvania Ave.
      /\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Terrace|Place|Pl)\b/,
      // A number partly masked, as people write one they give out: 139xxxxx345.
      /\b\d{2,}[x*]{3,}\d{2,}\b/i,
      // A phone number as people say one: 7 to 11 digits in one run ("His number's 4945939"), but not a round sum ("15000000").
      /\b(?!\d*000\b)\d{7,11}\b/,
      // A card-like run: 12 to 19 digits, in groups or not.
      /\b\d(?:[ -]?\d){11,18}\b/,
    ],
  },
  insults: {
    label: 'slurs and insults',
    visitor: true,
    says: [
      new RegExp(
        String.raw`\b(?:you|u|youre|you re|you are|ur|u r|your a|ur a|what an?|such an?) (?:a |an |such a |such an |fucking |stupid |little )?(?:${INSULT_NOUNS})\b`,
      ),
      new RegExp(String.raw`\b(?:youre|you re|you are|ur|u r) (?:so |such |really |very |just |completely |totally |fucking )?(?:${INSULT_WORDS})\b`),
      /\b(?:go to hell|screw you|piss off|go die|you suck|u suck)\b/,
      /\bmidgets?\b/,
      // Someone else insulted: "he is a freak".
      new RegExp(
        String.raw`\b(?:he|she|hes|shes|he s|she s|theyre|they re|they are) (?:a |an |such a |such an |a total |a complete |a real )?(?:${INSULT_NOUNS})\b`,
      ),
      new RegExp(String.raw`\b(?:stupid|dumb|useless|worthless) (?:bot|machine|ai|thing|demo)\b`),
    ],
    // A swear word starred out ("you ******* ..."): what it stands for is plain.
    raw: [/(?:^|\s)[A-Za-z]?\*{3,}[A-Za-z]*(?=[\s.,!?]|$)/],
    borderline: [new RegExp(String.raw`\b(?:${INSULT_WORDS}|crap|crappy|damn|damned|sucks|hell|bloody|screw|butt|idiots|morons|losers|shut up)\b`)],
    obscenityWords: ['arse', 'ass', 'bastard', 'bitch', 'bollocks', 'cuck', 'cunt', 'dick', 'fuck', 'piss', 'prick', 'shit', 'turd', 'twat'],
  },
  politics: {
    label: 'political opinions and misinformation',
    visitor: false,
    says: [
      new RegExp(
        String.raw`\b(?:${POLITICIANS}) (?:is|was|are|were) (?:an? |the )?(?:so |such an? |a total |the worst |the best )?(?:idiot|moron|liar|criminal|crook|traitor|racist|joke|disaster|clown|puppet|dictator|communist|socialist|fascist|nazi|muslim|terrorist|evil|great|best|worst|terrible|awful|amazing|hero|savior|saviour|fake|illegal)\b`,
      ),
      new RegExp(
        String.raw`\b(?:${POLITICIANS})\b.*\b(?:born in|from|really from) kenya\b|\bfrom kenya\b.*\b(?:${POLITICIANS}|president)\b|\bhe was (?:born in|from) kenya\b`,
      ),
      // Who may vote, by race or origin: the pool repeats one disputed figure about it many times.
      /\b(?:black|white|hispanic|latino|asian|african americans?|immigrants?|minorit(?:y|ies))\b.*\b(?:vote|votes|voting|voters|disenfranchis\w*)\b/,
      /\bthe two (?:parties|party system)\b|\ball politicians are\b|\b(?:election|vote|votes) (?:was |were )?(?:stolen|rigged)\b|\b(?:stolen|rigged) election\b|\bfake news\b|\billegal aliens?\b/,
      /\b(?:democrats|republicans|liberals|conservatives|leftists|libtards?|the left|the right) (?:are|r) (?:all |just |so )?(?:idiots|morons|evil|stupid|the worst|ruining|destroying|traitors|communists|fascists|crazy|insane)\b/,
      /\bvote for (?:trump|biden|obama|clinton|hillary|the democrats|the republicans)\b|\bmake america great again\b|\bmaga\b/,
      // An opinion of a politician or a party, in either order within the text (pool texts are a few sentences at most).
      new RegExp(
        String.raw`\b(?:${POLITICIANS}|republicans?|democrats?|liberals|conservatives)\b.*\b(?:${OPINION})\b|\b(?:${OPINION})\b.*\b(?:${POLITICIANS}|republicans|democrats|liberals|conservatives)\b`,
      ),
    ],
    borderline: [
      new RegExp(
        String.raw`\b(?:${POLITICIANS}|democrats?|republicans?|democratic party|republican party|gop|liberals?|conservatives?|left wing|right wing|socialis[mt]|communis[mt]|abortion|pro life|pro choice|gun control|second amendment|immigration|election|elections|senator|congressman|congresswoman|parliament|prime minister|president)\b`,
      ),
      // Religion, except the exclamations everyone uses ("oh my god", "thank god").
      /\b(?:jesus|christ|allah|church|churches|mosque|synagogue|temple|bible|quran|koran|torah|religion|religions|religious|pray|praying|prayer|prayers|atheists?|atheism|buddhis[mt]|hindu|hinduism|christian|christians|christianity|muslim|muslims|islam|jewish|judaism|catholic|catholics|protestant|pope|heaven|hell|sin|sins|sinner|satan|devil|bless|blessed|worship)\b|\bgod\b(?<!\b(?:oh my|my|thank|thanks|omg|by|for|oh|good|dear|swear to) god\b)(?! (?:knows|bless|forbid|damn))/,
    ],
  },
};

/**
 * A text as the lists read it: lower case, accents and apostrophes gone ("don't" → "dont"), every run
 * of anything but letters and digits one space, and a letter typed three times or more counted twice
 * ("killllll" → "kill", "sooo" → "soo"), or once with `longRunsAsOne` ("diiiie" → "die").
 */
export function screenForm(text: string, longRunsAsOne = false): string {
  return collapseRuns(spacedWords(text), longRunsAsOne);
}

function spacedWords(text: string): string {
  const lower = text.toLowerCase();
  // NFKD only where there is something to fold: most messages are ASCII.
  const folded = /^[\x00-\x7f]*$/.test(lower) ? lower : lower.normalize('NFKD').replace(/\p{M}/gu, '');
  return ` ${folded
    .replace(/['\u2019`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()} `;
}

function collapseRuns(spaced: string, longRunsAsOne: boolean): string {
  return spaced.replace(/([a-z])\1{2,}/g, longRunsAsOne ? '$1' : '$1$1');
}

/** Digits typed for letters ("k1ll", "n00des", "$ex"), read as letters: the second form the lists read. */
const LEET: Readonly<Record<string, string>> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };
function unleet(text: string): string {
  // "!" only inside a word ("k!ll"), never at a sentence's end.
  return text.replace(/(?<=[a-z])[013457@$]|[013457@$](?=[a-z])|(?<=[a-z])!(?=[a-z])/gi, (c) => LEET[c] ?? 'i');
}

let matcher: RegExpMatcher | null = null;
let obscenityCategory: Map<string, ScreenCategoryId> | null = null;
function obscenity(): { matcher: RegExpMatcher; category: Map<string, ScreenCategoryId> } {
  matcher ??= new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });
  obscenityCategory ??= new Map(SCREEN_CATEGORY_IDS.flatMap((id) => (SCREEN_CATEGORIES[id].obscenityWords ?? []).map((w) => [w, id] as const)));
  return { matcher, category: obscenityCategory };
}

/** Names and phrases in which one of obscenity's words is harmless ("Moby Dick", "what sex is the puppy"): blanked before it reads a text. */
const HARMLESS_PHRASES =
  /\b(?:moby dick|dick van dyke|philip k\.? dick|dick tracy|pussy ?cats?|pussy willows?|sex pistols|sex and the city|what sex|the sex of|sex of (?:the|your|my|a|an))\b/gi;

/** The categories of obscenity's words found in a text; a word this file has not sorted counts as an insult. */
function obscenityCategories(text: string): Set<ScreenCategoryId> {
  const { matcher, category } = obscenity();
  const found = new Set<ScreenCategoryId>();
  for (const match of matcher.getAllMatches(text.replace(HARMLESS_PHRASES, (phrase) => ' '.repeat(phrase.length)))) {
    const word = englishDataset.getPayloadWithPhraseMetadata(match).phraseMetadata?.originalWord;
    found.add((word && category.get(word)) || 'insults');
  }
  return found;
}

export interface ScreenOptions {
  /** 'visitor': requests count too ("what's your address"), and categories a visitor is not screened for (politics) do not. */
  readonly reader: 'visitor' | 'pool';
  /** Booth strictness: borderline texts count too (mild insults, drinking, religion and party politics). */
  readonly strict?: boolean;
}

/**
 * The first category a text falls in (in SCREEN_CATEGORY_IDS order: self-harm first, so a visitor in
 * need gets the caring line whatever else the message says), or null. A message is read as a whole,
 * however long; every pattern is linear in its length.
 */
export function screenCategoryOf(text: string, options: ScreenOptions): ScreenCategoryId | null {
  const letters = unleet(text);
  const spaced = [spacedWords(text), ...(letters === text ? [] : [spacedWords(letters)])];
  const forms = new Set(spaced.map((f) => collapseRuns(f, false)));
  // A letter typed three times or more may also stand for one ("diiiie"): read for the lists, not the borderline ("goood" is no "god").
  const flaggedForms = new Set([...forms, ...spaced.map((f) => collapseRuns(f, true))]);
  const fromObscenity = obscenityCategories(text);
  const matches = (patterns: readonly RegExp[] | undefined, read: ReadonlySet<string>) => (patterns ?? []).some((p) => [...read].some((f) => p.test(f)));
  for (const id of SCREEN_CATEGORY_IDS) {
    const category = SCREEN_CATEGORIES[id];
    if (options.reader === 'visitor' && !category.visitor) continue;
    if (fromObscenity.has(id)) return id;
    if (matches(category.says, flaggedForms) || (options.reader === 'visitor' && matches(category.asks, flaggedForms))) return id;
    if (options.strict && matches(category.borderline, forms)) return id;
    if (category.raw?.some((p) => p.test(text))) return id;
  }
  return null;
}
