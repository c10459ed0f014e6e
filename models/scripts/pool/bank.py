"""Template data of write_dialogues.py: everything here was written for this project (CC0).

Generic banks (reactions by mood, acknowledgements, requests for pictures, closings) live here; the
categories of dialogue (a subject, what people say about it, the questions they ask and the answers
they get) are in cat_*.py; the hand-written one-liners and the small-talk grammar of the text pool are
in lines.py. Template syntax: see write_dialogues.py.
"""
# emoji codes as MMDialog writes them in text (CLDR names, spaces as underscores)
EMOJI = {
    "love": ["smiling_face_with_heart-eyes", "red_heart", "smiling_face_with_hearts", "two_hearts"],
    "cute": ["pleading_face", "smiling_face_with_heart-eyes", "face_holding_back_tears"],
    "laugh": ["face_with_tears_of_joy", "rolling_on_the_floor_laughing", "grinning_squinting_face"],
    "wow": ["star-struck", "astonished_face", "fire", "exploding_head"],
    "approve": ["thumbs_up", "clapping_hands", "hundred_points", "OK_hand"],
    "celebrate": ["party_popper", "partying_face", "confetti_ball", "clinking_glasses"],
    "hungry": ["face_savoring_food", "drooling_face"],
    "jealous": ["pleading_face", "loudly_crying_face"],
    "sad": ["crying_face", "pensive_face", "broken_heart"],
    "support": ["crossed_fingers", "flexed_biceps", "folded_hands"],
    "cool": ["smiling_face_with_sunglasses", "fire"],
    "tired": ["sleeping_face", "yawning_face", "weary_face"],
    "music": ["musical_notes", "sign_of_the_horns", "headphone"],
    "cold": ["cold_face", "snowflake"],
    "hot": ["hot_face", "sun"],
    "wave": ["waving_hand", "hugging_face"],
    "wink": ["winking_face", "smirking_face"],
    "shock": ["face_screaming_in_fear", "flushed_face"],
}

# reaction stickers: CLDR labels of Fluent emoji in the pool, by mood
STICKERS = {
    "love": ["smiling face with heart-eyes", "smiling face with hearts", "red heart", "heart hands", "two hearts",
             "sparkling heart", "growing heart", "pink heart", "face blowing a kiss", "revolving hearts", "beating heart",
             "heart with ribbon", "purple heart", "yellow heart", "smiling face with smiling eyes"],
    "cute": ["smiling face with heart-eyes", "pleading face", "face holding back tears", "smiling face with hearts",
             "two hearts", "heart hands", "sparkling heart", "smiling face with tear", "pink heart"],
    "wow": ["star-struck", "astonished face", "face with open mouth", "exploding head", "hushed face", "fire",
            "sparkles", "flushed face"],
    "laugh": ["face with tears of joy", "rolling on the floor laughing", "grinning squinting face",
              "cat with tears of joy", "grinning face with sweat", "beaming face with smiling eyes", "zany face",
              "squinting face with tongue", "grinning cat with smiling eyes"],
    "approve": ["thumbs up", "OK hand", "clapping hands", "hundred points", "raising hands", "victory hand", "oncoming fist"],
    "celebrate": ["party popper", "partying face", "confetti ball", "clapping hands", "raising hands",
                  "clinking glasses", "bottle with popping cork", "balloon"],
    "hungry": ["face savoring food", "drooling face", "pinched fingers", "fork and knife with plate", "face with tongue"],
    "jealous": ["pleading face", "loudly crying face", "face holding back tears", "weary face", "melting face", "weary cat"],
    "sad": ["crying face", "pensive face", "disappointed face", "broken heart", "hugging face", "loudly crying face",
            "people hugging", "sad but relieved face", "crying cat", "mending heart", "slightly frowning face"],
    "support": ["crossed fingers", "flexed biceps", "folded hands", "four leaf clover", "hugging face", "raised fist", "oncoming fist",
                "smiling face with open hands"],
    "cool": ["smiling face with sunglasses", "fire", "hundred points", "sign of the horns", "love-you gesture", "cowboy hat face"],
    "tired": ["sleeping face", "yawning face", "tired face", "weary face", "face with bags under eyes", "ZZZ",
              "sleepy face"],
    "music": ["musical notes", "sign of the horns", "headphone", "musical note", "love-you gesture", "woman dancing",
              "man dancing"],
    "cold": ["cold face", "snowflake", "snowman"],
    "hot": ["hot face", "melting face", "sun with face", "sweat droplets"],
    "wave": ["waving hand", "hugging face", "face blowing a kiss", "smiling face with open hands", "raised hand", "kissing face"],
    "shock": ["face screaming in fear", "exploding head", "flushed face", "grimacing face", "face with open mouth", "anguished face", "fearful face"],
    "oops": ["grimacing face", "face with hand over mouth", "upside-down face", "person facepalming",
             "see-no-evil monkey"],
}
# the sticker that goes with a reply to an answer of this mood
MOOD_STICKER = {"pos": "approve", "neg": "sad", "fun": "laugh", "neu": "approve"}
OWN_SENTS = ["love", "laugh", "cute", "wow"]

# backgrounds of rendered scenes, as their labels say them (normalised), and how people say where they were
BACKGROUND_PHRASES = [
    ("on a wooden table", "table"), ("in the park", "grass"), ("on the grass", "grass"), ("in a field", "grass"),
    ("on the beach", "beach"), ("by the sea", "beach"), ("at the beach", "beach"), ("in the snow", "snow"),
    ("on a table", "table"), ("on the table", "table"), ("in the sky", "sky"), ("in the water", "water"),
    ("in a room", "room"), ("indoors", "room"), ("on the street", "street"), ("in the city", "street"),
    ("in the garden", "grass"), ("on a lake", "water"), ("in a lake", "water"),
]
BACKGROUNDS = ["grass", "beach", "snow", "table", "sky", "water", "room", "street"]
WHERE = {"grass": "at the park", "beach": "at the beach", "snow": "in the snow", "table": "at home",
         "sky": "outside", "water": "at the lake", "room": "at home", "street": "in town"}

COMMON_SLOTS = {
    "friend": ["my sister", "my brother", "my cousin", "my roommate", "Sam", "Priya", "Jonas", "Leila", "Tom", "Mei",
               "my best friend", "Ana", "Marco", "Nadia", "Ben", "Chloe", "Kofi", "Hana"],
    "pal": ["Sam", "Priya", "Jonas", "Leila", "Tom", "Mei", "Ana", "Marco", "Nadia", "Ben", "Chloe", "Kofi", "Hana"],
    "past": ["yesterday", "last weekend", "on Saturday", "on Sunday", "this morning", "last night"],
    "spot": ["the station", "my office", "the old bridge", "the market", "the park", "the library", "the river",
             "my gym", "the cinema"],
}


def COMMON_SLOTS_ONE(rng):
    return {k: rng.choice(v) for k, v in COMMON_SLOTS.items()}


GREETINGS = ["[hey|heyy|hi|hii|hiii]!", "[hey you|hey stranger]!", "[morning|good morning]!",
             "[helloo|hello hello]!", "[hey hey|heyyy]!"]
DRIFT_PRE = ["anyway", "anyways", "btw", "oh btw", "also", "totally unrelated but", "ok random but",
             "changing the subject but", "oh wait", "before I forget,"]

# reactions to a picture, by mood; nothing in them names the subject
REACT = {
    "love": [
        "[I love this|love this|I love this so much][!|!!|]{e:love}",
        "[this is|that's] [so|soooo|really] [pretty|lovely|beautiful|gorgeous]{e:love}",
        "[ok|okay] I'm [obsessed|in love]",
        "[stunning|gorgeous|beautiful][!!|!|]{e:love}",
        "[aww|awww] [I love it|love it|this is lovely]",
        "this [made|just made] my [day|morning|whole week]",
        "[ahh|ahhh] this is [so nice|everything]",
        "10/10 no notes",
        "[this is so|so] [nice|good]",
        "[I'm|ok I'm] [saving|screenshotting] this",
        "[perfect|literally perfect]{e:love}",
        "[my heart|my heart!!]",
    ],
    "cute": [
        "[omg|aww|awww|ahh] [so cute|too cute|the cuteness][!!|!|]",
        "[I can't|I literally can't][!!|]{e:cute}",
        "[look at that face|that little face|those eyes][!!|]",
        "[my heart can't take this|my heart|I'm melting]",
        "protect at all costs",
        "[stop it|stoppp] [that's adorable|this is too much]",
        "haha that's adorable{e:cute}",
        "the cutest thing I've seen all [day|week]",
        "[too precious|so precious]{e:cute}",
        "[omg|ok] I need to [squish|hug] [it|this]",
        "[that's|this is] [unbelievably|ridiculously] cute",
    ],
    "wow": [
        "[wow|woah|whoa][!|!!| omg]",
        "[that's|this is] [insane|unreal|incredible|amazing]{e:wow}",
        "no way[!!|!|]",
        "[how is this|is this even] real",
        "[you're so lucky|lucky you][!|]",
        "[ok|okay] that's [breathtaking|next level]",
        "[I'm speechless|speechless]",
        "wait this is [so cool|actually amazing]",
        "[omg|wow] [look at that|look at this]",
        "[that's|this is] [wild|something else]",
        "[that's|this is] [stunning|spectacular] [wow|honestly|]",
    ],
    "laugh": [
        "[haha|hahaha|lol|lmao] [this is amazing|I can't|I'm crying]{e:laugh}",
        "[I'm|im] [dead|deceased|crying][!!|]{e:laugh}",
        "[stop|stoppp] [lol|haha|]",
        "[lmao|lol] [why is this so funny|the timing]",
        "[this|that] [killed me|made me laugh way too hard]",
        "I laughed out loud [on the bus|in a meeting|at my desk]",
        "[hahaha|haha] [iconic|classic]",
        "not me [wheezing|laughing] at this",
        "[I needed this laugh|needed that laugh] [today|]",
        "[ok|okay] this is [hilarious|too funny]",
    ],
    "approve": [
        "[nice|niiice|sweet|love that][!|!!]",
        "[yes|yess]!! [good for you|well done]",
        "[looks great|looking good][!|]{e:approve}",
        "[100%|a hundred percent] approve",
        "[love it|love this][!|]",
        "[solid|great] [choice|work]",
        "[that's great|this is great][!|]",
        "[that's the spirit|now we're talking]",
        "[ooh|oh] [nice|fancy]",
        "[amazing|brilliant][!!|!]{e:approve}",
    ],
    "celebrate": [
        "[congrats|congratulations|CONGRATS][!!|!!!|!]{e:celebrate}",
        "[yay|yayyy|woohoo][!!|!]",
        "[so happy for you|this is huge][!!|]",
        "[let's go|LET'S GO][!!|!!!]",
        "[we have to|we need to] celebrate",
        "[finally|about time]!! [well deserved|you earned it]",
        "[omg|OMG] [congrats|congratulations]{e:celebrate}",
        "[so much fun|how fun][!!|!]",
    ],
    "hungry": [
        "[omg|ok] [I'm|now I'm] [starving|so hungry]{e:hungry}",
        "[that looks|looks] [delicious|amazing|so good]",
        "[save me some|I want some|can I have some]",
        "[drooling|I'm drooling] [rn|right now|over here]",
        "[ok|okay] [that's|this is] [unfair|rude] [before lunch|at this hour]",
        "[chef's kiss|ten out of ten]",
        "[that looks|this looks] [so|really] [tasty|yummy]{e:hungry}",
        "[yum|yummm|mmm][!!|!]",
        "[I can smell it from here|I can almost taste it]",
    ],
    "jealous": [
        "[so jealous|so jealous right now|I'm so jealous]{e:jealous}",
        "[ugh|ughh] I want to be there",
        "take me with you [next time|please]{e:jealous}",
        "[meanwhile|and here] I'm [stuck at my desk|at work|on the couch]",
        "[rude|how dare you] [lol|haha]",
        "I [need|want] this [in my life|so bad]",
        "[not fair|unfair][!!|]",
        "[omg|ok] [I'm|im] [jealous|so envious]",
    ],
    "sad": [
        "[oh no|oh noo][!|]{e:sad}",
        "[that sucks|that's so annoying|that's rough]",
        "[sending hugs|sending you a hug]",
        "[aw|aww] [I'm sorry|that's rough]",
        "[ugh|oof] [that's the worst|I feel that]",
    ],
    "support": [
        "[good luck|you've got this|you got this][!!|!]{e:support}",
        "[fingers crossed|crossing everything][!|]",
        "[I believe in you|rooting for you][!|]",
        "[you'll be great|you'll smash it][!!|]",
    ],
    "cool": [
        "[so cool|that's so cool][!|]{e:cool}",
        "[vibes|immaculate vibes]",
        "[ok|okay] [cool|that's sick]",
        "[this is|that's] [sick|awesome]{e:cool}",
        "[big|total] main character energy",
    ],
    "tired": [
        "[same|mood|big mood]{e:tired}",
        "[honestly same|felt that]",
        "[rest|go rest] [please|pls]",
        "[ugh|oof] [I feel this|relatable]",
    ],
    "music": [
        "[this slaps|banger|absolute banger]{e:music}",
        "[ok|okay] [rockstar|rock star]",
        "[the talent|so talented]",
        "[encore|ENCORE][!!|]",
        "[I can hear it from here|I can hear this picture] lol",
    ],
    "cold": [
        "[brr|brrr] [I'm cold just looking at it|cold]",
        "[so cold|freezing]{e:cold}",
        "[bundle up|stay warm][!|]",
    ],
    "hot": [
        "[too hot|so hot]{e:hot}",
        "[stay cool|drink water][!|]",
        "I'm sweating just looking at this",
    ],
    "shock": [
        "[omg|OMG] [are you ok|is everyone ok]??",
        "[yikes|eek|oh my god]",
        "[that's|this is] [terrifying|scary]{e:shock}",
    ],
}

# what the sharer says back to a reaction, by the reaction's mood
REACT_BACK = {
    "love": ["[right??|ikr!!|I know right][!|]", "[thank you|thanks|thank youu][!!|!]{e:love}",
             "[haha|aw] [thank you|thanks]", "[aww|aw] [thanks|thank you]!!", "[I know|ikr], I'm [so happy|obsessed]"],
    "cute": ["[right??|ikr!!] {e:cute}", "[I know|ikr], [I can't handle it|it's too much]", "[haha|aw] [I know|right]",
             "[I'll|I'll] [tell|pass that on to] [them|the little one]"],
    "wow": ["[right??|ikr!!|I know right]", "[I still can't believe it|still can't believe it]", "[haha|ha] [right??|I know]"],
    "laugh": ["[haha|lol|lmao] [right??|I know]", "[I'm still laughing|I can't stop laughing]",
              "[I knew you'd like that|knew you'd appreciate it]"],
    "approve": ["[thanks|thank you][!!|!]", "[haha|ha] [cheers|thanks]", "[thank you|thanks], [I'm pretty proud|feeling good]"],
    "celebrate": ["[thank you|thanks][!!|!!!]{e:celebrate}", "[thank youuu|thanks so much]!!", "[aww|aw] thank you!!"],
    "hungry": ["[it was|it's] [so good|amazing|unreal]", "[I'll save you some|I'll make it for you sometime]",
               "[haha|lol] [sorry|sorry not sorry]"],
    "jealous": ["[haha|lol] [sorry|sorry not sorry]", "[next time|next time you're coming], [promise|I promise]",
                "[I'll bring you something back|I'll bring you a souvenir]"],
    "sad": ["[thanks|thank you], [it's ok|I'll live]", "[it is what it is|oh well] [lol|haha|]"],
    "support": ["[thank you|thanks][!!|!]", "[I hope so|fingers crossed] [lol|haha|]"],
    "cool": ["[haha|ha] [thanks|thank you]", "[right??|ikr]"],
    "tired": ["[haha|lol] [right|I know]", "[send coffee|I need a nap]"],
    "music": ["[haha|lol] [thank you|thanks]!!", "[I'm working on it|still practising] lol"],
    "cold": ["[it's|it was] [freezing|so cold] [lol|haha|]", "[I can't feel my toes|my fingers are frozen]"],
    "hot": ["[I'm melting|we're melting]", "[send ice|it's brutal] [lol|haha|]"],
    "shock": ["[we're fine|all good] [don't worry|haha]", "[yes|yep] all fine, just [wet|dramatic]"],
}

# replies to an answer, by the answer's mood
ACK = {
    "pos": ["[oh nice|nice|ooh nice|love that][!|]", "[amazing|perfect|sounds perfect][!|]",
            "[aww|ahh] [that's so nice|love that for you]", "[good|great|that's great][!|]",
            "[that sounds|sounds] [amazing|lovely|great]", "[haha|ha] nice", "[oh wow|wow] [nice|!]",
            "[so good|that's so good]", "[ahh|ooh] [love it|love that]", "[perfect|ideal], [love that|good for you]",
            "[ooh|oh] [nice one|very nice]", "[that's|oh that's] [lovely|brilliant]", "[haha|oh] [amazing|love it]",
            "[good|great] [to hear|stuff]", "[oh yay|yay], [love that|so good]"],
    "neg": ["[oh no|oh noo|ugh|oof][!|]", "[that's annoying|the worst]", "[aw|aww] [that sucks|sorry]",
            "[typical|classic] [lol|haha]", "[nooo|noo]", "[ugh|ah] [I'm sorry|that's rough]", "[oh|ah] [what a shame|that's a shame]",
            "[argh|ugh] [of course|typical]", "[poor you|aw poor you][!|]", "[not ideal|not great] [lol|haha|]"],
    "fun": ["[haha|hahaha|lol|lmao][!|]", "[I'm crying|dead]{e:laugh}", "[of course|obviously] [lol|haha]",
            "[classic|iconic][!|]", "[that's|this is] [hilarious|so funny]",
            "[why am I not surprised|not surprised at all] [lol|haha|]", "[lol|haha] [same|fair]", "[stop|stoppp] [lol|haha]",
            "[hahaha|lmao] [I love that|amazing]", "[that's|that is] [so you|very you] [lol|haha]", "[lol|haha] [honestly|fair enough]"],
    "neu": ["[ah ok|ahh ok|oh ok|makes sense]", "[ahh|ah] [nice|cool]", "[oh|ooh] [nice|cool]",
            "[ok|oh] [cool|gotcha]", "[ahh|ah] I see", "[oh|ooh] [interesting|nice one]", "[oh right|right], [nice|cool]",
            "[ahh|oh] [ok ok|okay okay]", "[good to know|noted] [lol|haha|]"],
}
# replies to a friend's story of their own
ACK_OWN = {
    "pos": ["[no way|ahh] [that's amazing|love that]", "[haha|aw] [love that|that's great]",
            "[aww|aw] [that's so nice|love that]", "[ha|haha] [nice|amazing]"],
    "invite": ["[come with me|come with us] next time[!|!!]", "[next time you're coming|you're coming next time], [no excuses|deal?]",
               "[then|ok then] [come along|join us] next time!"],
    "thanks": ["[haha|aw|aww] thank you!!", "[stop|stoppp], you'll make me cry", "[love you|you're the best]{e:love}",
               "[haha|aw] [thanks|thank you], [it means a lot|that means a lot]"],
    "neg": ["[oh no|noo] [lol|haha|]", "[aw|aww] [that's sad|not fair]", "[ugh|oof] [classic|the worst]",
            "[haha|lol] [sorry|poor you]"],
    "fun": ["[hahaha|haha|lol] [stop|no]", "[I'm crying|dead] {e:laugh}", "[lol|haha] [of course|iconic]",
            "[hahaha|lmao] [that's so you|of course you are]"],
    "neu": ["[ah ok|ahh]", "[fair|fair enough]", "[haha|ha] ok"],
}
# asking for a picture when there is none yet ("show me!") and asking for more
REQUEST_NEWS = [
    "[show me|show me!!|show me pls]", "pics or it didn't happen", "[omg|ooh] send [pics|photos|a pic]",
    "[wait|hold on] I need to see [this|that]", "[pic|photo] [please|pls]{e:jealous}",
    "[I need|need] [visual proof|proof|evidence]", "[do you have|got] [a pic|any pics]??",
    "[send me|show me] a [pic|photo] [right now|immediately|!!]", "[pics|photos]!! [now|please]",
    "[let me see|lemme see]!!", "[ooh|omg] [proof|photo] [please|pls]", "[I'm gonna need|I need] a [pic|photo] of that",
    "[where's the pic|where are the pics][??|!!]", "[excuse me|um], [pics??|where are the pics??]",
]
REQUEST = [
    "[more|MORE] [pics|photos] [please|pls|!!]", "[send|show] [me|] more", "[is there|got] more??",
    "I need more [pics|photos] [immediately|asap]", "[more!!|moreee]", "[keep them coming|don't stop now] [lol|haha|]",
    "[any|do you have any] more?", "[ok|okay] photo dump please", "[send|show me] the rest",
    "[I want|I need] to see [everything|all of them]", "[one more|just one more] [pic|photo] [please|pls][!|]",
    "[ooh|omg] [more|MORE] [please|pls]", "[that's|is that] all?? [more|I need more]",
]
# captions of more pictures sent after a request, and of pictures sent unprompted
MORE = [
    "[here you go|here|ok here][!|]", "[this one's my fave|my favourite one]", "[ok|okay] [one more|last one I promise]",
    "[as requested|your wish is my command]", "[haha|ok] [you asked for it|you asked]",
    "[I have like a hundred|I took way too many] [lol|haha|]", "[this is the best one|best one]",
    "[ok|okay] [don't judge the angle|ignore my thumb]", "[ok fine|fine], [just for you|one more]",
]
MORE_TWO = [
    "[ok|fine] [here's a couple more|two more]", "[spam incoming|sorry for the spam] [lol|haha|]",
    "[here|here you go], [my two favourites|the best two]", "[ok|okay] [these two|both of these]",
]
FIRST_PIC = ["[here|ok here|ta-da][!|!!]", "[proof|here's the proof][!!|!|]", "[look|look!!|see]", "[ok|okay] [look|here you go]",
             "[voilà|tadaa]", "[as requested|there you go]", "[fine|ok fine], [here|look][!|]", "[you asked|you asked for it] [lol|haha|]",
             "[evidence|exhibit A][!|]", "[see|told you][!!|!]"]
NO_MORE = ["[that's all I've got|that's the only one] [lol|haha]", "[I only took one|only got one pic], [sorry|too busy enjoying it]"]
MORE_UNPROMPTED = [
    "[and this one!!|oh and this]", "[wait|oh] [one more|I forgot this one]", "[also|plus] this", "[ok|and] [this one's my fave|best one]",
    "[oh|and] [look|this] [lol|haha|]", "[one more bc|one more because] I can't choose",
]
NEWS_REACT = ["[wait what|no way|WHAT|omg|OMG][!!|??|!]", "[shut up|no way][!!|]", "[wait|hold on] [really??|seriously??]",
              "[stop it|stoppp][!!|]", "[omg|ooh] [yay|tell me more][!!|]", "[oh my god|omg omg][!!|]", "[are you serious|is this real][??|!!]",
              "[you're kidding|no way, really][??|!!]", "[ahh|aaah] [amazing|yes][!!|]"]
ACCEPT = [
    "[yes!!|yesss|yes please][!|]", "[deal|it's a deal][!|]", "[count me in|I'm in][!!|!]", "[100%|absolutely][!|]",
    "[let's do it|let's actually do it this time][!|]", "[omg yes|yes yes yes]", "[sounds like a plan|works for me]",
    "[I'll hold you to that|you're on]", "[yess|yes], [I'd love that|can't wait]", "[deal|ok deal], [you pick the day|text me the details]",
    "[yes please|oh yes please][!!|!]", "[omg|ooh] yes[!!|!], [let's|I'm so in]", "[that would be|that'd be] [amazing|perfect]",
    "[obviously|of course] [yes|I'm in][!|!!]", "[say no more|say less][!|]", "[you read my mind|I was about to suggest that] [lol|haha|]",
]
# closings: <bye> ones are answered with a goodbye, the rest (wishes: "enjoy!", "good luck") with thanks
CLOSE = [
    "<bye>[ok|okay] [gotta go|I have to run] [but|] [talk later|ttyl]", "<bye>[talk soon|speak soon]{e:wave}",
    "<bye>[ok|right] [back to work|off to bed] [for me|] [lol|haha|]", "<bye>[miss you|missing you] [lots|already]",
    "<bye>[ok|anyway] [I'm off|gotta run], [speak soon|talk tomorrow]", "<bye>[ok|right] [talk later|catch you later]!",
]
CLOSE_REPLY = {
    "bye": ["[bye|byee|ttyl][!|]{e:wave}", "[talk soon|speak soon][!|]", "[love you|miss you], bye[!|]",
            "[haha|ha] [ok|okay] bye", "[later|laters][!|]{e:wave}", "[bye bye|byeee]"],
    "wish": ["[will do|I will][!!|!]", "[thanks|thank you][!!|!]", "[haha|ha] [thanks|thank you]", "[aw|aww] thank you!!",
             "[will do|ok]{e:wink}", "[haha|ha] [I'll try|will try]"],
}

# the categories of dialogue, and the pool's own lines
from catkit import pet_ctx, birthday_ctx  # noqa: E402,F401  (named by "make_ctx" in a category)
import cat_travel, cat_animals, cat_food, cat_music, cat_nature, cat_sports, cat_celebrations, cat_daily  # noqa: E402,E401
from lines import HANDWRITTEN, POOL_GRAMMAR  # noqa: E402,F401

CATEGORIES = {}
for _m in (cat_travel, cat_animals, cat_food, cat_music, cat_nature, cat_sports, cat_celebrations, cat_daily):
    CATEGORIES.update(_m.CATEGORIES)
