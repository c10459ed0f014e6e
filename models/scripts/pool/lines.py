"""Hand-written chat lines and the small-talk grammar of the text pool (written for this project, CC0)."""

# "topic: text", one line each
HANDWRITTEN = """
small-talk: lol same
feelings: Congrats!!
small-talk: hey, you up?
small-talk: omg hi!! it's been forever
small-talk: how's your week going?
small-talk: did you get my voice note?
small-talk: sorry, just saw this
small-talk: ok wait I have so much to tell you
small-talk: call me when you're free?
small-talk: can't talk now, text you later
small-talk: are we still on for tomorrow?
small-talk: running 10 min late, sorry!!
small-talk: I'm outside
small-talk: where are you?? we're by the entrance
small-talk: ok I'm here, where are you sitting?
small-talk: what are you up to this weekend?
small-talk: any plans tonight?
small-talk: nothing much, just chilling. you?
small-talk: same old, same old
small-talk: I literally just woke up lol
small-talk: good morning sunshine
small-talk: night night, talk tomorrow
small-talk: sleep well!
small-talk: miss you! when are you back?
small-talk: we need to catch up properly soon
small-talk: coffee this week?
small-talk: brunch on sunday? I need to hear everything
small-talk: let me check my calendar and get back to you
small-talk: works for me!
small-talk: perfect, see you then
small-talk: can we move it to 7?
small-talk: sorry I have to cancel tonight, something came up
small-talk: no worries at all, another time!
small-talk: haha fair enough
small-talk: wait what
small-talk: I can't believe you just said that lol
small-talk: that's what I said!!
small-talk: ok but hear me out
small-talk: long story, tell you later
small-talk: you won't believe what just happened
small-talk: guess who I just bumped into
small-talk: did you hear about Sam and Priya??
small-talk: I need your advice on something
small-talk: quick question
small-talk: random question: what's your favourite cereal?
small-talk: would you rather have a cat or a dog?
small-talk: if you could live anywhere, where would it be?
small-talk: what's the best thing that happened to you this week?
small-talk: tell me something good
small-talk: what are you having for dinner?
small-talk: have you watched anything good lately?
small-talk: any book recommendations?
small-talk: send me your favourite song right now
small-talk: what's the plan for saturday?
small-talk: are you coming to the party on friday?
small-talk: who else is coming?
small-talk: should I bring anything?
small-talk: I'll bring snacks
small-talk: what time should I come over?
small-talk: text me when you get home
small-talk: home safe!
small-talk: thanks for tonight, had so much fun
small-talk: that was the best evening, we need to do it again
small-talk: why do I always forget my umbrella
small-talk: Why did the scarecrow win an award? Because he was outstanding in his field
small-talk: I told my plants a joke. they didn't laugh, they just grew on me
small-talk: my brain has too many tabs open
small-talk: I'm not lazy, I'm in energy saving mode
small-talk: I need a holiday from my holiday
small-talk: adulting is hard
small-talk: me: I'll go to bed early. also me at 2am:
small-talk: the group chat is so quiet today
small-talk: who wants to do something fun this weekend?
small-talk: ok who's in for pizza tonight?
small-talk: vote: cinema or bowling?
small-talk: I'm bored, entertain me
small-talk: rate my outfit 1-10
small-talk: be honest, does this look ok?
small-talk: happy friday!!
small-talk: finally the weekend
small-talk: it's only wednesday?? how
small-talk: sunday scaries already
feelings: haha that's adorable
feelings: I'm so happy for you!!
feelings: this made me smile
feelings: aww you're the best
feelings: thank you so much, that means a lot
feelings: I'm so proud of you
feelings: sending you a big hug
feelings: ugh, today was a lot
feelings: honestly I'm exhausted
feelings: feeling a bit down today tbh
feelings: you always know how to cheer me up
feelings: I'm so nervous about tomorrow
feelings: I did it!!!
feelings: best day ever
feelings: I can't stop laughing
feelings: I'm crying real tears
feelings: this is the best news
feelings: oh no, are you ok?
feelings: let me know if you need anything
feelings: I'm here if you want to talk
feelings: that's so sweet of you
feelings: you made my day
feelings: I'm so excited!!
feelings: can't wait!!
feelings: so jealous right now
feelings: that's hilarious
feelings: I love that for you
feelings: omg yes
feelings: nooo
feelings: yay!!
feelings: wow!!
feelings: amazing :thumbs_up:
feelings: so cute :smiling_face_with_heart-eyes:
feelings: I'm dead :face_with_tears_of_joy:
feelings: love you guys :red_heart:
feelings: good luck today!! :crossed_fingers:
feelings: you've got this :flexed_biceps:
feelings: happy for you :smiling_face_with_hearts:
feelings: this is everything
feelings: big mood
feelings: same tbh
feelings: relatable
feelings: I needed to hear that today
travel: just landed!!
travel: at the airport, flight's delayed again
travel: passport, tickets, snacks. ready
travel: window seat, best seat
travel: the hotel has a pool!!
travel: I've walked 20,000 steps today and I regret nothing
travel: the old town here is like a film set
travel: I got lost three times today but found the best bakery
travel: the train ride was the best part honestly
travel: do you have any tips for Lisbon?
travel: where should we go for the long weekend?
travel: I need a holiday so badly
travel: back home and already planning the next trip
travel: jet lag is real
travel: the sunset from the ferry was unreal
travel: we rented bikes and cycled along the coast
travel: I've eaten nothing but street food for three days
travel: the view from the top was worth every step
travel: road trip playlist suggestions?
travel: packing is the worst part of travelling
animals: my cat just knocked my coffee off the table. on purpose
animals: the dog stole a whole sandwich off the counter
animals: there's a hedgehog in the garden!!
animals: a squirrel just stole my muffin at the park
animals: my dog is scared of the vacuum cleaner
animals: my cat sleeps on my laptop every time I try to work
animals: we're fostering kittens this month!
animals: look at this good boy
animals: the ducks at the pond are back
animals: I saw a fox on my way home last night
animals: my parrot learned to say hello
animals: the neighbour's cat visits me every morning
animals: zoo trip with the kids on saturday
animals: I want a dog so badly
animals: adopt don't shop
animals: my hamster escaped again
food: what should I cook tonight?
food: pizza or sushi? I can't decide
food: I made too much pasta again
food: the new bakery on the corner is dangerous
food: coffee first, talk later
food: I'm so hungry I could eat a horse
food: this ramen place is incredible
food: homemade lemonade for the win
food: first barbecue of the summer!
food: I burnt the toast. again
food: my sourdough starter is alive!!
food: brunch is the best meal, fight me
food: I'm on my third coffee and it's not even 10
food: anyone want to try the new taco place?
food: I'm addicted to bubble tea
food: I tried the spiciest curry on the menu. mistake
food: grandma's soup cures everything
food: craving chocolate so bad right now
food: the strawberries at the market are perfect right now
food: what's your go-to comfort food?
music: this song has been stuck in my head all day
music: new album drops tonight!!
music: the concert was incredible, the crowd was singing every word
music: I've been learning guitar, my fingers hurt!
music: send me a song you've had on repeat
music: karaoke on friday?
music: the festival lineup is out!!
music: my neighbour plays the trumpet at 7am
music: found my old CDs, nostalgia overload
music: this playlist is perfect for a rainy day
music: I can't stop listening to this band
music: front row tickets!!!
music: piano lesson today, wish me luck
music: the orchestra was breathtaking
music: open mic night at the café tonight
nature: it's snowing!!!
nature: the leaves are turning, autumn is here
nature: the sunset tonight was unreal
nature: we went for a walk in the woods, so peaceful
nature: it's been raining all week, I miss the sun
nature: first day of spring and the blossoms are out
nature: the lake was completely still this morning
nature: there's a rainbow over the city right now
nature: thunderstorm tonight, the whole sky lit up
nature: it's so hot I can't think
nature: I planted tomatoes on the balcony
nature: the stars out here are incredible
nature: the sea was so calm today
nature: foggy mornings are my favourite
nature: my sunflowers are taller than me
sports: what a goal!! I can't believe it
sports: we won in the last minute!!
sports: my legs are dead after that run
sports: I signed up for a half marathon, what was I thinking
sports: first yoga class, I can't touch my toes
sports: tennis on saturday? I need a rematch
sports: the match is on tonight, come over?
sports: I finally beat my personal best
sports: swimming before work is the best feeling
sports: anyone want to join a five-a-side team?
sports: cycling to work now, my knees hate me
sports: skiing next week and I've never skied before
sports: that referee was blind
sports: bowling night, I got three strikes!!
sports: gym at 6am, who am I
celebrations: happy birthday!! hope you have a wonderful day
celebrations: happy anniversary you two
celebrations: congratulations on the new job, that's fantastic news!
celebrations: happy new year!! here's to a good one
celebrations: merry christmas to you and your family
celebrations: happy holidays everyone!
celebrations: the party was amazing, thank you for organising
celebrations: we're getting married!!
celebrations: it's a girl!!
celebrations: cheers to 30 years of friendship
celebrations: surprise party tonight, don't tell her
celebrations: the cake was a masterpiece
celebrations: happy graduation!! so proud of you
celebrations: we passed!!!
celebrations: let's celebrate this weekend
daily-life: monday again...
daily-life: just finished work, finally
daily-life: working from home today
daily-life: my laptop just died in the middle of a meeting
daily-life: the bus was 20 minutes late again
daily-life: I have an exam tomorrow and I haven't started
daily-life: the library is so quiet today
daily-life: team meeting could have been an email
daily-life: I cleaned the whole flat and it looks amazing
daily-life: ikea trip this weekend, pray for me
daily-life: the washing machine broke, great
daily-life: new haircut, who dis
daily-life: I finally fixed the leaking tap myself
daily-life: we're moving next month!
daily-life: grocery shopping while hungry was a mistake
daily-life: I need a nap
daily-life: what a day
daily-life: long day, going straight to bed
daily-life: finally finished my essay
daily-life: my to do list is longer than my arm
daily-life: the new neighbours seem nice
daily-life: I started a puzzle and now I can't stop
daily-life: book club tonight and I'm only halfway through
daily-life: cosy night in with a film and tea
travel: We just got back from the beach, the water was freezing! The kids went in anyway and now they're all asleep in the car
travel: Honestly the best part of the trip was getting lost. We found this tiny square with a fountain and stayed there for hours
travel: The flight was delayed by three hours but the airport had a piano, so someone played the whole time. Not the worst wait
travel: Booked the train instead of flying this time. Slower, but the views through the mountains are unreal
travel: Day two in the old town and I've already eaten four pastries. No regrets. Tomorrow we're doing the castle
travel: We rented a tiny car and drove along the coast all day. Stopped at every beach we saw
animals: My cat has decided the laundry basket is her bed now. I've given up fighting it
animals: The dog heard the word walk and hasn't calmed down since. I was talking about my own walk to work
animals: We saw seals on the rocks this morning! They were just lying there like giant sausages
animals: The vet says he's perfectly healthy, just a bit too fond of treats. Same, buddy
animals: A duck followed us all the way around the lake. I think we have a new friend
food: I tried my grandma's soup recipe and it tastes exactly like hers. Almost cried into the bowl
food: The new ramen place is so good. The queue was ridiculous but the broth was worth every minute
food: Made pizza from scratch tonight. The dough was a disaster but it still tasted amazing
food: I bought way too many strawberries at the market. Jam this weekend, who's in?
food: Coffee number three and it's not even ten. Don't judge me, it's been a week
food: We had a picnic in the park and a wasp ate most of my sandwich. Still a great day
music: The concert last night was incredible. The crowd was singing every word and I've lost my voice
music: Started guitar lessons this week. My fingers hurt but I can almost play one song
music: My neighbour practises the trumpet every morning at seven. He's getting better, to be fair
music: Found my old piano books in the attic. I'm going to try that piece I could never finish
music: The festival lineup is out and I need to go. Who's coming with me?
nature: We hiked up to the lake this morning. Not a single cloud, and the water was so clear
nature: First snow of the year! The kids are already outside building something that might be a snowman
nature: It's been raining all week here. I miss the sun so much
nature: My tomatoes finally turned red. Three months of watering for four tomatoes, totally worth it
nature: The sunset tonight turned the whole sky pink. Everyone on the bridge stopped to take pictures
nature: Thunderstorm last night, the whole house was shaking. The cat spent the night under the bed
sports: We won our first match of the season! Nobody expected it, least of all us
sports: Ran my first 10k today. Slow, but I didn't stop once
sports: The final was unbelievable. Extra time, penalties, the whole pub was screaming
sports: Tried climbing for the first time. My arms are jelly but I'm going back next week
sports: Swimming before work is the best feeling. Cold for the first minute, then amazing
celebrations: Happy birthday!! Hope you have a wonderful day and a very big slice of cake
celebrations: The surprise party worked! She had no idea, you should have seen her face
celebrations: We got engaged last night! Still can't stop looking at the ring
celebrations: Graduation was so emotional. Mum cried, dad cried, I cried. Great day
celebrations: Happy new year! Thank you for being there this year, here's to the next one
celebrations: The whole family came for dinner and grandma made her famous cake. Best holiday in years
daily-life: Monday again. Three meetings before lunch and my coffee's already cold
daily-life: Finally finished my essay at 2am. Submitting it before I change my mind
daily-life: We moved into the new flat! Nothing's unpacked but we have a kettle, which is what matters
daily-life: Fixed the leaking tap myself with a video and one borrowed wrench. Feeling unstoppable
daily-life: Cleaned the whole flat and it looks amazing. Nobody is allowed to touch anything
daily-life: Working from home today. The cat has attended every meeting
daily-life: Book club tonight and I'm only halfway through. Going to nod a lot and hope for the best
small-talk: Sorry I've been so quiet, this week has been chaos. Call this weekend?
small-talk: Are we still on for Saturday? I found a new place we should try
small-talk: Just saw a dog that looked exactly like yours and I waved at it. The owner was very confused
small-talk: Random thought: we should go somewhere we've never been this summer. Any ideas?
small-talk: Thanks for tonight, I laughed so much. We need to do that more often
""".strip().splitlines()

# the small-talk grammar of the pool: (topic, frames, realisations per frame)
POOL_GRAMMAR = [
    ("small-talk", [
        "[hey|hi|hiii|heyy] [how are you|how's it going|what's up][?|??]",
        "[hey|hi] [stranger|you]! [how have you been|long time no see][?|!]",
        "[morning|good morning]! [sleep well|did you sleep ok][?|]",
        "[how was|how's] your [day|weekend|week|monday][?|??]",
        "[anything|got anything] [fun|exciting] planned for the [weekend|holidays]?",
        "[are you|you] free [on saturday|tomorrow night|this weekend|after work]?",
        "[want to|wanna] [grab|get] [coffee|lunch|a drink|dinner] [this week|tomorrow|on friday]?",
        "[let's|we should] [hang out|catch up|get dinner] [soon|this week|before you leave]",
        "[sorry|sorry sorry], [I'm running late|I'll be 10 minutes late|I'm stuck in traffic]",
        "[I'm|just] [leaving|leaving now|on my way][!|, see you soon]",
        "[did you|have you] [see|seen] [my message|the group chat|what Sam posted]?",
        "[what time|where] [are we meeting|should we meet][?|??]",
        "[how about|what about] [7|8|half 7] at [the usual place|mine|the café]?",
        "[ok|okay] [see you|see ya] [then|soon|at 8][!|]",
        "[can't|can not] [wait|wait to see you][!!|!]",
        "[are you|you] [watching|still watching] [that show|the new series]? [no spoilers|don't spoil it]",
        "[guess what|you'll never guess what] happened [today|at work|on the bus]",
        "[I have|got] [news|gossip|a question] for you",
        "[ok|okay] [random|weird] question: [do you like olives|are you a morning person|tea or coffee]?",
        "[what's|what is] your [favourite|go-to] [film|snack|song|place in town]?",
        "[I'm so|so] [bored|tired|hungry] [lol|haha|rn]",
        "[thanks|thank you] [for today|for everything|for listening][!|!!| :red_heart:]",
        "[text me|let me know] when you're [home|back|free]",
        "[happy|have a good] [friday|weekend|monday|week][!|!!]",
        "[night|good night]! [talk tomorrow|sweet dreams|sleep tight]",
        "[haha|lol|lmao] [you're so funny|you're ridiculous|stop]",
        "[wait|hold on], [really|seriously|for real]?",
        "[I knew it|called it|told you so][!|!!]",
        "[honestly|ngl] [same|that's fair|I agree]",
        "[no way|shut up], [that's amazing|that's crazy]",
        "[I'm in|count me in|sounds fun]! [what time|where]?",
        "[should I|do you think I should] [get a fringe|dye my hair|buy the red one]?",
        "[help|help me], [I can't decide|I need to choose] what to [wear|eat|watch]",
    ], 3),
    ("daily-life", [
        "[so much|way too much] [work|homework|laundry] [today|this week]",
        "[just|finally] [finished|done with] [work|my shift|class|the meeting][!|!!]",
        "[my|the] [boss|teacher|landlord] [just|] [emailed|called] [again|on a sunday]",
        "[exam|presentation|interview] [tomorrow|on monday], [wish me luck|I'm terrified]",
        "[the|my] [train|bus] [is|was] [late|cancelled] [again|as usual]",
        "[working|studying] [from home|at the library|in a café] [today|all week]",
        "[need|I need] [coffee|sleep|a holiday] [asap|so badly]",
        "[cleaning|tidying] the [flat|kitchen|whole house] [today|this weekend]",
        "[doing|did] [the|my] [food shop|laundry|taxes] [today|this morning], [so adult|very grown up]",
        "[new|my new] [phone|laptop|glasses] [arrived|came today][!|!!]",
    ], 3),
    ("nature", [
        "[it's|it is] [so|really] [cold|windy|rainy|sunny|hot] [today|out there]",
        "[what's|how's] the weather [like|] [there|at yours]?",
        "[finally|] [sun|some sun] [today|at last][!|!!]",
        "[rain|more rain] [again|all day|all week] [ugh|lol|]",
        "[perfect|lovely] [weather|day] for a [walk|picnic|swim]",
        "[first|the first] [snow|frost|warm day] of the [year|season][!|!!]",
        "[forgot|I forgot] my umbrella [again|of course]",
        "[the|this] [autumn|spring|winter] [light|air] [is|is just] [beautiful|so nice]",
    ], 3),
]
