"""Animals: someone's pet, animals at the zoo / in the wild / at sea, and a day on a farm."""
from catkit import C

PET = {
    "topic": "animals",
    "weight": 1.6,
    "make_ctx": "pet_ctx",
    "concepts": {
        "dog": C("dog|dog face|poodle|puppy|puppies", thing="dog", bgs=["grass", "beach", "snow", "room", "street"], not_=["hot dog", "guide dog", "service dog"],
                 young="puppy", sound="woof", breed=["part lab", "a collie mix", "mostly terrier", "part spaniel", "half husky"]),
        "cat": C("cat|cat face|black cat|kitten|kittens", thing="cat", bgs=["room", "grass"],
                 not_=["cat with", "grinning cat", "kissing cat", "weary cat", "crying cat", "pouting cat", "smiling cat"],
                 young="kitten", sound="meow", breed=["a tabby", "part Maine Coon", "part Siamese", "a proper alley cat"]),
        "hamster": C("hamster", thing="hamster", bgs=["room"], young="baby hamster", sound="squeak"),
        "rabbit": C("rabbit|rabbit face|bunny", thing="bunny", bgs=["room", "grass"], young="baby bunny", sound="thump"),
        "parrot": C("parrot|budgie", thing="parrot", bgs=["room"], young="baby parrot", sound="hello"),
        "turtle": C("turtle|tortoise", thing="tortoise", bgs=["room", "grass"], young="baby tortoise", sound="..."),
        "fish": C("tropical fish|goldfish", thing="fish", things="fish", bgs=["room", "water"], young="little fish", sound="blub"),
    },
    "backgrounds": ["grass", "beach", "snow", "room", "street", "water"],
    "scene_extra": ["ball", "soccer ball", "tennis", "bone", "teddy bear", "basket", "potted plant", "yarn", "couch and lamp",
                    "bed", "pillow", "flying disc", "paw prints", "evergreen tree", "deciduous tree"],
    "where": {"grass": "at the park", "beach": "at the beach", "snow": "in the snow", "room": "at home",
              "street": "on our walk", "water": "at the lake"},
    "sents": ["cute", "cute", "love", "laugh"],
    "ack_sticker": {"pos": "cute"},
    "openers": {"share": 0.45, "news": 0.15, "open": 0.32, "photo": 0.08},
    "share": [
        "meet {name}!! [our new baby|the newest member of the family|the new boss of the house]{e:love}",
        "{name} has decided this is {his} spot now",
        "[found|caught] {name} like this when I got home",
        "{name} says [hi|hello]{e:wave}",
        "[look who|guess who] finally let me take a [decent|good] picture",
        "this is how {name} [waits for dinner|looks at me when I'm eating|judges me every morning]",
        "[can't get anything done,|I have work to do but] {he} won't [move|leave me alone]",
        "{name} {where} [today|this morning|earlier]. best day of {his} life apparently",
        "took {name} {where} and {he} [had the time of {his} life|refused to leave]",
        "[my|our] {thing} {name}. that's it, that's the post",
        "[someone|somebody] [thinks|is convinced] {he}'s [a model|the main character]",
        "[the|this] face of [pure innocence|someone who just ate my sandwich]",
        "[happy|it's] {name}'s [birthday|gotcha day] today!! {e:celebrate}",
        "{name} [stole|ate] a whole sandwich off the table [this morning|yesterday]. look at {him}, zero regrets",
        "[we|I] [adopted|brought home] {name} [last week|on Saturday]. {^he}'s already taken over the [couch|whole house]",
    ],
    "news": [
        "[guess what|big news]... we [got|adopted] a {young}!!",
        "I have a new roommate. {he} has [four legs|whiskers|a tail] lol",
        "[we're|I'm] officially a {thing} [mum|parent|owner] now!!",
        "{name} did something [so dumb|hilarious|so cute] today",
    ],
    "news_react": ["[omg|OMG] [yay|congrats]!!", "[wait|no way] [really??|!!]", "[stop|omg] [I need details|tell me everything]"],
    "open": ["how's {name} doing??", "how's the new {young}??", "[any|] new {name} pics?", "how's my favourite {thing}?"],
    "open_a": ["[thriving|chaos|living {his} best life] [lol|haha|]", "[see for yourself|judge for yourself]", "[always|of course], [look|here]",
               "[as cute as ever|cuter every day]{e:cute}", "{^he}'s [great|good]! [currently|] [asleep on my laptop|stealing my spot on the couch|being dramatic about dinner]",
               "[happy|spoiled|very spoiled] as always"],
    "react": {
        "cute": ["[omg|aww] {name}!!", "{^he}'s [so cute|adorable|perfect]{e:cute}", "I would die for {name}",
                 "[that face|those eyes]{e:cute}", "{^he} looks so [proud of {himself}|pleased with {himself}]",
                 "[such|what] a [{goodboy}|sweetheart]", "[tiny|little] {name}!! [I can't|my heart]"],
        "laugh": ["the [judgment|sass|attitude] in that face lol", "{^he} looks [so offended|so done with you]{e:laugh}",
                  "[lol|haha] {he} knows exactly what {he}'s doing", "[that|this] is the face of a [criminal|menace] lol"],
        "love": ["[I love {him}|love {him}] so much", "[this is so|so] [wholesome|heartwarming]", "{name} [is|remains] the best {thing} [ever|in the world]"],
    },
    "react_back": ["[right??|ikr] {he}'s [too much|the best]", "{^he} knows {he}'s cute, that's the problem", "[haha|lol] {he} [gets away with everything|runs this house]"],
    "q": {
        "age": {"react": True, "q": ["how old is {he}?", "[omg|aww] how old??", "how old is {he} now?"],
                "a": ["<pos>[ten|twelve|eleven] weeks!", "<pos>[two|three|four] years, but {he} acts like a baby",
                      "<pos>we think about [five|six], {he}'s a rescue", "<fun>old enough to know better lol"]},
        "name": {"react": True, "unless": "name", "q": ["what's {his} name??", "omg what's {his} name", "name??"],
                 "a": ["<pos>{name}!!", "<pos>{name}. the kids picked it", "<fun>{name}, but mostly [trouble|gremlin|little monster]",
                       "<pos>{name}! [suits {him} right?|{he} answers to it sometimes]"]},
        "behave": {"q": ["is {he} [well behaved|good]?", "[does {he} behave|is {he} an angel]?"],
                   "a": ["<fun>absolutely not lol", "<fun>{he} ate my [charger|left shoe|headphones] [yesterday|last week] so you tell me",
                         "<pos>an angel. [mostly|most of the time]", "<fun>only when there are treats involved"]},
        "sleep": {"only": ["dog", "cat"], "q": ["does {he} let you sleep?", "is {he} sleeping through the night yet?"],
                  "a": ["<neg>what is sleep{e:tired}", "<pos>[surprisingly|actually] yes!", "<fun>{he} sleeps, I don't lol",
                        "<fun>{he} sleeps on my face so technically yes"]},
        "breed": {"only": ["dog", "cat"], "q": ["what breed is {he}?", "what kind of {thing} is {he}?"],
                  "a": ["<neu>[vet says|apparently] {he}'s {breed}", "<fun>[no idea|honestly no idea] lol, a bit of everything",
                        "<neu>{breed}, we think"]},
        "where": {"q": ["where did you get {him}?", "where's {he} from?"],
                  "a": ["<pos>[from a shelter|from the rescue] [down the road|near my work]", "<pos>a friend's {thing} had babies",
                        "<fun>{he} kind of adopted us tbh"]},
        "meet": {"q": ["when can I meet {him}??", "[can I|when can I] come [meet|cuddle] {him}??"],
                 "a": ["<pos>[come over|come by] [this weekend|whenever you want]!!", "<pos>anytime! {he} loves visitors",
                       "<fun>bring snacks and {he}'ll love you forever"]},
    },
    "qs": {
        "want": {"q": ["you want one now, don't you?", "ok be honest, do you want one now?"],
                 "a": ["<fun>I want [ten|five]", "<fun>don't tempt me", "<neg>yes but my landlord says no{e:sad}",
                       "<pos>[I've wanted one|I've been wanting one] for years"]},
        "person": {"q": ["are you more of a dog or a cat person?", "dog person or cat person?"],
                   "a": ["<pos>both honestly", "<pos>dog, no question", "<pos>cat, always", "<fun>I'm a whoever-likes-me person"]},
    },
    "more_other": ["[and|oh and] {his} best friend, [our|the] {other}", "[and|this is] [our|the] {other}, {name}'s [partner in crime|bodyguard] lol"],
    "request": ["[more {name} pics|I need more {name} content] [please|pls|immediately]", "this is not enough {name}[, send more|]",
                "[send|more] pics of {him} [please|pls]"],
    "more": ["{name} [yesterday|this morning]", "[here's|this is] {his} [serious|model|best] face",
             "[there's more where that came from|I have hundreds]", "{he} [refused to|wouldn't] look at the camera for this one"],
    "own": ["<fun>[my|our] [cat|dog] does the exact same thing", "<pos>[ok|okay] I need a {thing} now",
            "<pos>my [grandma|neighbour|aunt] has one just like {him}", "<fun>I'm [allergic|so allergic] and I still want to [cuddle|hug] {him}",
            "<neg>I miss having a pet so much"],
    "own_img": ["<fun>[meanwhile|and meanwhile] my {other} [lol|haha|]", "<pos>[this is|here's] my {other}, they need to meet",
                "<fun>[mine|my {other}] says hi [back|too]"],
    "suggest": ["[can I|let me] come over and [meet|cuddle] {him} [this weekend|soon]", "[we should|let's] take {him} to the park [together|] [this weekend|on Sunday]",
                "[playdate|pet playdate] soon??"],
    "close": ["give {name} [a kiss|a cuddle|a treat|a scratch] from me", "tell {name} [I love {him}|I said hi]"],
    "close_reply": ["[will do|{he} says thanks]!!", "{he} says {sound}", "{he} says [hi back|thank you]"],
}

# fun facts for the zoo and the sea
FACTS = {
    "giraffe": "giraffes only sleep about two hours a day", "panda": "pandas spend like 12 hours a day eating",
    "penguin": "penguins give each other pebbles as gifts", "koala": "koalas sleep up to 20 hours a day",
    "elephant": "elephants can recognise themselves in a mirror", "octopus": "octopuses have three hearts",
    "kangaroo": "kangaroos can't walk backwards", "flamingo": "flamingos are pink because of what they eat",
    "sloth": "sloths only go to the toilet once a week", "dolphin": "dolphins have names for each other",
    "otter": "sea otters hold hands when they sleep", "crocodile": "crocodiles can't stick their tongues out",
    "polar_bear": "polar bears have black skin under the fur", "narwhal": "a narwhal's tusk is actually a tooth",
    "hedgehog": "hedgehogs snore", "owl": "owls can't move their eyes", "cheetah": "cheetahs can't roar, they purr",
    "zebra": "no two zebras have the same stripes", "lion": "lions sleep like 20 hours a day",
    "chameleon": "chameleons change colour with their mood", "gorilla": "gorillas laugh when they're tickled",
    "shark": "sharks are older than trees", "whale": "blue whales have hearts the size of a small car",
    "seal": "seals can sleep underwater", "camel": "camels have three eyelids", "red_panda": "red pandas use their tail as a blanket",
    "tiger": "tigers have striped skin, not just striped fur", "rhino": "rhino horns are made of the same stuff as our nails",
    "turtle": "some turtles can breathe through their bums", "jellyfish": "jellyfish don't have brains",
    "butterfly": "butterflies taste with their feet", "bee": "bees dance to tell each other where the flowers are",
}


def _wild():
    spec = [
        ("giraffe", "giraffe", "zoo"), ("elephant", "elephant", "zoo"), ("lion", "lion", "zoo"), ("tiger|tiger face", "tiger", "zoo"),
        ("zebra", "zebra", "zoo"), ("panda", "panda", "zoo"), ("red panda", "red panda", "zoo"), ("koala", "koala", "zoo"),
        ("kangaroo", "kangaroo", "zoo"), ("polar bear", "polar bear", "zoo"), ("penguin", "penguin", "sea"),
        ("flamingo", "flamingo", "zoo"), ("gorilla", "gorilla", "zoo"), ("monkey|monkey face|macaque|gibbon|long nosed monkey|orangutan", "monkey", "zoo"),
        ("rhinoceros", "rhino", "zoo"), ("hippopotamus", "hippo", "zoo"), ("crocodile", "crocodile", "zoo"),
        ("jaguar|leopard", "big cat", "zoo"), ("cheetah", "cheetah", "zoo"), ("meerkat|meerkats", "meerkat", "zoo"),
        ("lemur|ring tailed lemur", "lemur", "zoo"), ("sloth", "sloth", "zoo"), ("otter", "otter", "sea"), ("seal", "seal", "sea"),
        ("dolphin", "dolphin", "sea"), ("whale|spouting whale|orca", "whale", "sea"), ("shark", "shark", "sea"),
        ("octopus", "octopus", "sea"), ("jellyfish", "jellyfish", "sea"), ("turtle", "turtle", "sea"),
        ("camel|camels|two hump camel", "camel", "zoo"), ("moose", "moose", "wild"), ("bison", "bison", "wild"),
        ("chameleon|chamaeleon", "chameleon", "zoo"), ("komodo dragon", "komodo dragon", "zoo"), ("narwhal", "narwhal", "sea"),
        ("scarlet macaw|macaw|toucan|parrot|peacock", "parrot", "zoo"), ("owl", "owl", "wild"), ("eagle", "eagle", "wild"),
        ("fox", "fox", "wild"), ("deer", "deer", "wild"), ("hedgehog", "hedgehog", "wild"), ("squirrel|chipmunk", "squirrel", "wild"),
        ("heron|kingfisher|spoonbills|northern harrier|swan|swans", "bird", "wild"), ("butterfly", "butterfly", "wild"),
        ("honeybee|bee", "bee", "wild"), ("fish|tropical fish|blowfish", "fish", "sea"), ("crab|lobster", "crab", "sea"),
        ("pika|flying fox|nubian ibex", "wild animal", "wild"),
    ]
    venue = {"zoo": ["the zoo", "the wildlife park", "the safari park"], "sea": ["the aquarium", "the sea life centre", "the marine park"],
             "wild": ["the nature reserve", "the woods", "the forest park"]}
    out = {}
    for match, thing, kind in spec:
        key = thing.replace(" ", "_")
        if key in out:
            key = match.split("|")[0].replace(" ", "_")
        fact = FACTS.get(key) or FACTS.get(match.split("|")[0].replace(" ", "_"))
        bgs = {"zoo": ["grass"], "sea": ["water", "beach"], "wild": ["grass"]}[kind]
        if thing in ("polar bear", "penguin", "seal"):
            bgs = ["snow", "water"]
        elif thing in ("eagle", "owl", "bird"):
            bgs = ["grass", "sky", "water"]
        elif thing in ("hippo", "crocodile", "otter"):
            bgs = ["water", "grass"]
        things = {"fish": "fish", "deer": "deer", "bison": "bison", "moose": "moose", "jellyfish": "jellyfish"}.get(thing)
        c = C(match, thing=thing, kinds=["photo", "sticker", "scene"],
              not_=["fish cake", "see no evil monkey", "hear no evil monkey", "speak no evil monkey"] + (["flying fox"] if thing == "fox" else []),
              venue=venue[kind], fact=fact, kind=kind, bgs=bgs)
        if things:
            c["slots"]["things"] = things
        out[key] = c
    for k, c in out.items():
        c["related"] = [o for o in out if o != k and out[o]["slots"]["kind"] == c["slots"]["kind"]]
    return out


WILD = {
    "topic": "animals",
    "weight": 1.3,
    "concepts": _wild(),
    "backgrounds": ["grass", "water", "snow", "beach"],
    "scene_extra": ["evergreen tree", "deciduous tree", "rock", "water wave", "palm tree", "cactus", "tulip", "sunflower", "coral"],
    "sents": ["wow", "cute", "love"],
    "ack_sticker": {"pos": "love"},
    "openers": {"share": 0.45, "news": 0.12, "open": 0.35, "photo": 0.08},
    "share": [
        "[look who we met|look who I met|look who said hi] at {venue}{e:wow}",
        "[{venue} today|day out at {venue}] and the {thing} [stole the show|was the star]",
        "the {thing} [was just|kept] [staring at us|posing|showing off] the whole time",
        "[ok|okay] the {thing} [wins|won] today",
        "[spotted|we spotted] {a_thing}[!!|!!!| on the way back]",
        "favourite animal: {thing}. no further questions",
        "[this|that] {thing} had more personality than most people I know",
        "[no zoom|zero zoom], {he} was [this close|right there]",
        "took the kids to {venue} and [honestly|] I had more fun than them",
        "[new|my new] favourite animal just dropped",
        "we waited [ages|forever] for the {thing} to come out and then {he} just [walked right up to the glass|posed for us]. best day",
        "[day out at|spent the day at] {venue}. the {thing} was [the highlight|my favourite], we [stayed|stood there] for half an hour",
    ],
    "slots": {"he": "he", "him": "him", "his": "his"},
    "news": ["I [just|literally just] saw {a_thing} [up close|this close]!!", "[you'll|you will] never guess what we saw at {venue}"],
    "open": ["how was {venue}??", "how was your day out?", "how was {venue}? did you have fun?"],
    "open_a": ["[so good|amazing|the best day]!! [look who we met|this guy]", "[the|this] {thing} was [the highlight|my favourite]",
               "[amazing|so fun]. [look|look at this guy]"],
    "react": {
        "wow": ["[omg|wow] [look at that|look at the size of that] {thing}", "[how close were you|you were so close]!!",
                "[the|that] {thing} [looks|is] [huge|massive|majestic]"],
        "cute": ["[the|that] {thing}!! {e:cute}", "[I want to hug it|I need to hug that {thing}]", "[baby|tiny] {thing}!!"],
        "laugh": ["[the|that] {thing} [looks|is] [so unimpressed|judging you] lol", "[lol|haha] {he} knows {he}'s famous"],
    },
    "q": {
        "where": {"react": True, "unless": "venue", "q": ["[wait|omg] where is this??", "where was this??", "where [were you|did you go]??"],
                  "a": ["<pos>{venue}! [we took the kids|first time in years]", "<pos>{venue}, [finally|it's so much bigger than I remembered]",
                        "<pos>{venue}!! [you'd love it|we should go together]"]},
        "close": {"q": ["how close were you??", "[were you|did you get] close?"],
                  "a": ["<fun>way too close lol", "<pos>[like two metres|a few metres] away!!", "<neu>there was glass in between, don't worry",
                        "<fun>close enough to smell it lol"]},
        "fave": {"q": ["what was your [fave|favourite] animal?", "best animal of the day?"],
                 "a": ["<pos>[honestly|] the {things}", "<pos>[the|those] {other}s, [so funny|they were hilarious]", "<pos>the {thing} obviously"]},
        "feed": {"q": ["did you get to feed [it|them]?", "could you feed them?"],
                 "a": ["<pos>yes!! [so gentle|it was so gentle]", "<neg>no, not allowed sadly", "<fun>I tried and got [slobbered on|ignored]"]},
    },
    "qs": {
        "fact": {"needs": "fact", "q": ["did you know {fact}?", "fun fact: {fact}. did you know?"],
                 "a": ["<fun>I did not, and now I'll never forget it", "<pos>yes!! [favourite fact ever|best fact]",
                       "<fun>[I'm going to tell|telling] everyone that", "<neu>no way, [really?|seriously?]"]},
        "been": {"q": ["have you been to {venue}?", "have you ever been to {venue}?"],
                 "a": ["<neg>[not since I was a kid|never!]", "<pos>[yes|once], [loved it|so fun]", "<fun>only on school trips lol"]},
    },
    "request": ["[more|any more] animal pics??", "did you see any [other|more] animals? pics pls", "[more|send more] {thing} pics"],
    "more": ["[and|plus] [a|the] close-up", "[this|this one] [was|is] my favourite"],
    "more_other": ["[and|plus] the {other}s [were|are] [hilarious|so cute|unreal]", "[we also saw|and] {a_other}!!", "{^the_other} [was|were] [also|] a highlight"],
    "own": ["<pos>I [saw|went to see] {a_thing} [on holiday|as a kid] and [cried|loved it]", "<fun>{things} are [my spirit animal|so underrated]",
            "<neg>I haven't been to {venue} since [school|I was ten]", "<pos>{things} are my favourite!!"],
    "suggest": ["[next time|let's go together], [take me|I'm coming]", "[we should|let's] go [together|] [this summer|when it's warmer]"],
    "close": ["[say hi to|give my love to] the {things} [lol|haha|]", "[enjoy|have fun]!!"],
}

FARM = {
    "topic": "animals",
    "weight": 0.7,
    "concepts": {
        "cow": C("cow|cow face|calf|ox", thing="cow", kinds=["photo", "sticker", "scene"], young="calf"),
        "pig": C("pig|pig face", thing="pig", kinds=["photo", "sticker", "scene"], young="piglet"),
        "sheep": C("sheep|ewe|ram", thing="sheep", things="sheep", kinds=["photo", "sticker", "scene"], young="lamb"),
        "goat": C("goat", thing="goat", kinds=["photo", "sticker", "scene"], young="baby goat"),
        "horse": C("horse|horse face|donkey|pony", thing="horse", not_=["carousel horse", "horse racing"], kinds=["photo", "sticker", "scene"], young="foal"),
        "chicken": C("chicken|rooster|hen|baby chick|hatching chick|front facing baby chick", thing="chicken", kinds=["photo", "sticker", "scene"], young="chick"),
        "duck": C("duck|goose|gosling", thing="duck", kinds=["photo", "sticker", "scene"], young="duckling"),
        "alpaca": C("alpaca|llama", thing="alpaca", kinds=["photo", "sticker", "scene"], young="baby alpaca"),
    },
    "backgrounds": ["grass"],
    "scene_mix": True,
    "scene_extra": ["tractor", "sheaf of rice", "ear of corn", "hut", "house with garden", "evergreen tree", "deciduous tree", "sunflower", "egg", "basket"],
    "slots": {"farm": ["my uncle's farm", "a farm near the lake", "the petting farm", "my grandparents' farm", "the city farm"]},
    "sents": ["cute", "laugh", "love"],
    "share": [
        "[farm day|day at the farm]!! {e:love}", "[made a new friend|new best friend] at {farm}",
        "[this|the] {thing} [followed me|would not leave me alone] [all day|the whole time]",
        "[weekend at|spent the weekend at] {farm}, [so peaceful|no wifi, all {things}]", "[look who|look what] [came to say hi|I met today]",
        "[the|this] {young} was born [last week|three days ago]!!", "{^a_thing} [posing|showing off] for the camera",
        "spent the [day|morning] at {farm}. we [fed the animals|helped with the feeding] and I [smell like a barn|need a shower] but I'm so happy",
    ],
    "news": ["[guess who|guess what] [got to feed|I fed] a {young} today!!", "[spent|I spent] the [day|morning] at {farm} and I'm [in love|changed]"],
    "open": ["how was the farm??", "how was the weekend at the farm?"],
    "open_a": ["[so good|amazing|the best]!! [look who I met|meet my new friend]", "[muddy|so muddy] but [amazing|so worth it]"],
    "react": {
        "cute": ["[the|that] {thing}!! {e:cute}", "[I need|I want] a {thing} [now|immediately]", "[that|the] face!!"],
        "laugh": ["[that|the] {thing} [looks so smug|is judging you] lol", "[lol|haha] it looks like it's smiling"],
    },
    "q": {
        "feed": {"react": True, "q": ["did you get to feed [it|them]??", "did you feed [it|them]?"],
                 "a": ["<pos>yes!! [so cute|they're so gentle]", "<fun>I tried and it ate my sleeve", "<pos>with a bottle!! best day ever"]},
        "smell": {"q": ["did it smell lol", "how bad was the smell?"],
                  "a": ["<fun>[horrible|awful]. worth it", "<fun>I still smell like a farm lol", "<pos>you get used to it honestly"]},
        "where": {"unless": "farm", "q": ["where was this?", "where's the farm?"],
                  "a": ["<pos>{farm}! [an hour out of town|not far at all]", "<pos>{farm}, [we go every summer|first time there]"]},
        "eggs": {"q": ["did you bring back [eggs|anything]?", "fresh eggs??"],
                 "a": ["<pos>a dozen fresh eggs!!", "<pos>eggs and [cheese|honey]!", "<neg>no, they'd sold out{e:sad}"]},
    },
    "qs": {"been": {"q": ["have you ever been to a farm?", "you've been to one right?"],
                    "a": ["<neg>not since [school|I was a kid]", "<pos>[yes|loads], my [grandparents|aunt] had one", "<fun>does a petting zoo count"]}},
    "request": ["[more|send more] {thing} pics", "[any|got any] pics of the {young}s??"],
    "more_other": ["[and|plus] the {other}s!!", "[there were|they had] {other}s too"],
    "own": ["<pos>I [always|] wanted to live on a farm", "<fun>a goat once ate my [map|hat] on a farm visit", "<pos>my [grandpa|aunt] had {things}!"],
    "suggest": ["[take me|let's go] next time!!", "[farm|farm day] trip together [soon|this summer]?"],
    "close": ["[say bye|say hi] to the {things} for me", "[enjoy|have fun], farmer lol"],
}

CATEGORIES = {"pet": PET, "wild": WILD, "farm": FARM}
