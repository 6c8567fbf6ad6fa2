"""The words the claim parser knows, per language (English, German, French, Spanish, Portuguese, Italian, Dutch).

Data only. Words are written case-folded and without accents (the parser compares folded tokens), except the
Portuguese and Italian copulas "é" / "è", which would otherwise read as "e" (and). Phrases are space-separated
words; a `*` in a pattern marks where the value sits when it is not simply everything after the phrase (German
and Dutch put participles last: "ist nach * gezogen").

What is here is grammar, not examples: the ways each language says where someone lives or works, what they are
called, how old they are, whom they are with, what they like or prefer; negation; the words that announce a
change ("now", "no longer", "actually"), an addition ("also", "a second") or the old value ("instead of",
"sold", "quit"); and the function words that carry no content. A fact whose wording none of this covers is still
compared by its structure (see decisions.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Slots: what a claim is about. Functional slots hold one value at a time (a second value replaces the first);
# `like` holds many and flips only by polarity; `prefer` holds one value per domain; `is` is functional for
# anything but the user (the user "is" many things at once) — an attribute's value ("the sister's name", "the
# favourite colour") or a named person or number ("my manager is Marcus", "Priya is 34"); what someone else is
# like or doing (learning the cello, scared of flying) is `state`, which holds many.
FUNCTIONAL_SLOTS = frozenset({"residence", "employer", "workplace", "title", "name", "age", "origin"})
RELATION_SLOTS = frozenset({"spouse", "partner"})
"""Relations are stored as the related person's name: "married Luis" = subject (spouse), slot name."""


@dataclass(frozen=True)
class Pattern:
    words: tuple[str, ...]
    slot: str
    cue: bool = False
    """The pattern itself announces a change ("moved to", "became")."""
    polarity: int = 1
    """-1 for the negative sentiment verbs ("hates"), which mean `like` with the opposite polarity."""
    fixed: tuple[str, ...] | None = None
    """A value implied by the pattern ("unemployed" = employer none)."""
    adverb: bool = False
    """An adverb inside the clause ("isst gerne Fleisch"): the words before it are not the subject."""


@dataclass(frozen=True)
class Language:
    code: str
    function_words: frozenset[str]
    user_words: frozenset[str]
    user_owner: tuple[tuple[str, ...], ...]
    """Phrases meaning "of the user", which make what precedes them the user's: "des nutzers", "of the user"."""
    copulas: frozenset[str]
    negations: frozenset[str]
    cues: frozenset[str]
    additive: frozenset[str]
    replace_forward: tuple[tuple[str, ...], ...]
    """After these, the old value follows: "instead of X", "sold the X", "quit X"."""
    replace_backward: tuple[tuple[str, ...], ...]
    """Verb-final languages: the old value comes before ("den Golf habe ich verkauft")."""
    connectors: frozenset[str]
    """Words that end a value: "lives in Berlin with ..."."""
    patterns: tuple[Pattern, ...]
    attributes: dict[str, str] = field(default_factory=dict)
    """Attribute nouns that name a slot of their owner: "employer" → employer, "home" → residence."""
    relations: dict[str, str] = field(default_factory=dict)
    """Relation nouns folded to one name: husband/wife → spouse, boss/manager → boss."""
    employer_prepositions: frozenset[str] = frozenset()
    """"a nurse at Mercy Hospital": the preposition that introduces an employer inside a job value."""
    title_prepositions: frozenset[str] = frozenset()
    """"joined Stripe as a staff engineer": the word that introduces a job title after an employer."""
    conjunctions: frozenset[str] = frozenset()
    """Coordinating words: a subject is looked for after the last one ("left the council and started ...")."""
    comparatives: tuple[tuple[str, ...], ...] = ()
    """"prefers X over Y": what follows is the value not preferred."""
    cue_phrases: tuple[tuple[str, ...], ...] = ()
    """Change cues of several words ("these days", "en realidad"): read as one cue, never as a value."""
    people: frozenset[str] = frozenset()
    """Nouns that stand for a person (kin, partners, friends, neighbours, the people one deals with): "my sister is
    ..." describes someone, who is many things at once ("learning the cello", "scared of flying"), while "my
    birthday is ..." gives an attribute its one value."""


def _w(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p.split()) for p in text.split("|") if p.strip())


def _patterns(slot: str, text: str, **flags: object) -> tuple[Pattern, ...]:
    return tuple(Pattern(words, slot, **flags) for words in _phrases(text))  # type: ignore[arg-type]


def _none(slot: str, text: str, **flags: object) -> tuple[Pattern, ...]:
    return _patterns(slot, text, fixed=("none",), **flags)


HONORIFICS = _w(
    "dr doctor mr mrs ms miss prof professor herr frau monsieur madame mme mlle docteur senor senora sr sra "
    "senhor senhora signor signora sig dottor dottore dottoressa meneer mevrouw dhr mevr"
)
"""Dropped when values are compared: "Dr. Weber" and "Weber" name the same person."""

_EN = Language(
    code="en",
    function_words=_w(
        "please kindly what whose why the a an this that these those it its is are am was were be been being 's s m re ve ll d "
        "has have had having do does did to of in on at for by with from about as into than then there here "
        "very really quite just still so some any one's own who whom which what where when how "
        "and or but because since while after before during until near over under up down out off "
        "can could would should will shall may might must "
        "he she they him her them his their hers theirs he's she's they're"
    ),
    user_words=_w("user owner i me my mine myself we our ours us"),
    user_owner=_phrases("of the user|of the owner|of mine|of ours"),
    copulas=_w("is are am was were m re"),
    negations=_w("not no never t cannot nor"),
    cues=_w(
        "now currently nowadays lately recently new newly just moved switched switch changed change changing "
        "started starting became become becoming actually correction corrected instead anymore longer since "
        "updated update turns misspoke sorry meant rather replaced postponed rescheduled delayed pushed retrained "
        "raised lowered increased decreased reduced "
        "brought forward extended"
    ),
    additive=_w("also too another second third additionally besides additional"),
    replace_forward=_phrases(
        "instead of|rather than|in place of|quit|quitting|left|leaving|sold|selling|cancelled|canceled|cancelling|"
        "stopped|stopping|gave up|given up|giving up|dropped|divorced|divorcing|broke up with|ended|replaced|"
        "goodbye|no more|notice at|moved away from|moved out of|swapped|swapped out|traded|traded in|exchanged|ditched|"
        "dumped|gave away|got rid of|getting rid of"
    ),
    replace_backward=_phrases(
        "got stolen|was stolen|got sold|was sold|broke down|died|passed away|is over|got cancelled|was cancelled|"
        "closed down|shut down"
    ),
    connectors=_w(
        "last next ago yesterday today tomorrow this and but because since as with for from until where who which when while after before during in on at "
        "near by to of now currently again anymore over than rather"
    ),
    patterns=(
        *_patterns(
            "residence",
            "lives in|live in|living in|lives at|lives on|resides in|reside in|residing in|based in|home is in|"
            "rents a flat in|rents an apartment in|rents a house in|rent a flat in|renting a flat in|"
            "stays in|calls * home",
        ),
        *_patterns(
            "residence",
            "moved to|moved back to|moving to|moves to|relocated to|relocating to|relocated back to|settled in|"
            "settling in|moved house to|has moved to|have moved to|moved into|moved in to|emigrated to|"
            "bought a house in|bought a flat in|bought an apartment in|bought a home in|new place in|new home in|"
            "new flat in|new apartment in|new house in",
            cue=True,
        ),
        *_patterns("origin", "is from|are from|am from|comes from|come from|grew up in|was born in|born in"),
        *_patterns(
            "employer",
            "works at|works for|work at|work for|working at|working for|worked at|employed at|employed by|"
            "job at|job with|works with|is with|employee of|employee at",
        ),
        *_patterns(
            "employer",
            "joined|joining|started at|starting at|started working at|started working for|starting work at|"
            "starts at|hired by|hired at|moved jobs to|new job at|got a job at|found a job at|took a job at|"
            "accepted a job at|switched jobs to|accepted an offer from|accepted a position at|started a new job at|"
            "started a job at|got hired at|got hired by|was hired by",
            cue=True,
        ),
        *_none("employer", "unemployed|jobless|between jobs|out of work|retired"),
        *_patterns("workplace", "works in|work in|working in|commutes to|office is in"),
        *_patterns(
            "title",
            "works as|work as|working as|employed as|job title is|role is|position is|freelances as|freelancing as|"
            "job as|position as|role as",
        ),
        *_patterns("title", "promoted to|was promoted to|retrained as|now works as|started working as", cue=True),
        *_patterns("title", "became|become|has become|becomes|turned into", cue=True),
        *_patterns("age", "* years old|* year old|aged|age is"),
        *_patterns("age", "turned|turns|just turned", cue=True),
        *_patterns("name", "is called|is named|named|called|goes by|name is|nicknamed"),
        *_patterns(
            "name",
            "renamed itself to|renamed itself|renamed to|was renamed|renamed|rebranded as|is now called",
            cue=True,
        ),
        *_patterns("spouse", "married to|is married to|wife of|husband of"),
        *_patterns("spouse", "married|got married to|got married to|marries|remarried", cue=True),
        *_patterns("partner", "dating|is dating|in a relationship with|together with|going out with"),
        *_patterns("partner", "engaged to|got engaged to|started dating|moved in with", cue=True),
        *_none("partner", "single|divorced|widowed|separated"),
        *_patterns(
            "like",
            "likes|like|liked|loves|love|loved|enjoys|enjoy|enjoyed|adores|adore|is a fan of|fan of|"
            "big fan of|is into|am into|are into|really into|get into|getting into|fond of|is fond of|passionate about|keen on|obsessed with|"
            "crazy about",
        ),
        *_patterns(
            "like",
            "hates|hate|hated|dislikes|dislike|disliked|can t stand|cannot stand|detests|detest|loathes|"
            "is not a fan of|not a fan of|allergic to|is allergic to|bore me|bores me|bored of|bored with|tired of|"
            "fed up with|sick of|annoy me|annoys me|avoids|avoid|avoiding|stays away from|steers clear of|gave up on",
            polarity=-1,
        ),
        *_patterns("prefer", "prefers|prefer|would rather|favours|favors|likes best"),
    ),
    attributes={
        "home": "residence",
        "residence": "residence",
        "address": "residence",
        "city": "residence",
        "hometown": "origin",
        "employer": "employer",
        "company": "employer",
        "workplace": "employer",
        "firm": "employer",
        "job": "title",
        "role": "title",
        "position": "title",
        "profession": "title",
        "occupation": "title",
        "title": "title",
        "living": "title",
        "age": "age",
        "name": "name",
        "first name": "name",
    },
    relations={
        "husband": "spouse",
        "wife": "spouse",
        "spouse": "spouse",
        "boyfriend": "partner",
        "girlfriend": "partner",
        "partner": "partner",
        "manager": "boss",
        "boss": "boss",
        "supervisor": "boss",
        "gp": "doctor",
        "physician": "doctor",
        "doctor": "doctor",
        "mum": "mother",
        "mom": "mother",
        "dad": "father",
    },
    employer_prepositions=_w("at for with"),
    title_prepositions=_w("as"),
    conjunctions=_w("and but then"),
    comparatives=_phrases("over|rather than|than|to|instead of"),
    cue_phrases=_phrases("these days|from now on|as of now|in fact|turns out|any more|at the moment|for now"),
    people=_w(
        "person people man woman guy girl boy child children kid kids baby son daughter mother father mum mom dad "
        "parent parents brother sister sibling twin grandmother grandfather grandma grandpa granny gran nan "
        "grandparent grandson granddaughter grandchild aunt uncle auntie cousin nephew niece husband wife spouse "
        "partner boyfriend girlfriend fiance fiancee ex stepmother stepfather stepson stepdaughter stepbrother "
        "stepsister godson goddaughter godmother godfather friend mate buddy neighbour neighbor colleague coworker "
        "boss manager supervisor employee assistant flatmate roommate housemate landlord landlady tenant "
        "babysitter nanny doctor gp physician dentist therapist nurse teacher tutor coach trainer lawyer solicitor "
        "accountant vet mentor student pupil client patient"
    ),
)

_DE = Language(
    code="de",
    function_words=_w(
        "was wer wen wem wessen wo wann wie welche welcher welches welchen warum womit wohin woher der die das den dem des ein eine einen einem einer eines dieser diese dieses ist sind bin bist war "
        "waren sein hat habe haben hatte hatten wird werden wurde es er sie ihm ihr ihn ihre ihren seine seinen "
        "seinem seiner sich zu im am um vom zum zur von in an auf aus mit fur bei nach uber unter vor hinter "
        "und oder aber denn weil als wie wo dass schon sehr noch ganz so"
    ),
    user_words=_w(
        "nutzer nutzerin nutzers benutzer benutzerin benutzers anwender anwenderin ich mich mir mein meine meinen "
        "meinem meiner meines wir uns unser unsere unseren unserem"
    ),
    user_owner=_phrases("des nutzers|der nutzerin|des benutzers|der benutzerin|des anwenders|von mir|von uns"),
    copulas=_w("ist bin sind war"),
    negations=_w("nicht kein keine keinen keinem keiner keines nie niemals"),
    cues=_w(
        "jetzt nun inzwischen mittlerweile seit neu neue neuer neuen neues neuem gewechselt umgezogen eigentlich "
        "korrektur stattdessen mehr aktuell derzeit zuletzt kurzlich neuerdings geandert berichtigung doch verschoben verlegt "
        "kurzem"
    ),
    additive=_w("auch ebenfalls ausserdem zudem zweite zweiten zweiter zweites weitere weiteren weiterer"),
    replace_forward=_phrases("statt|anstatt|anstelle von|anstelle|aufgehort mit|nicht mehr bei|weg von"),
    replace_backward=_phrases("verkauft|gekundigt|aufgegeben|verlassen|abgemeldet|beendet|abgeschafft"),
    connectors=_w(
        "letztes letzten letzte letzter vorigen voriges gestern heute morgen diesen dieses und aber weil seit als mit fur bis wo wenn nachdem bevor im in am um zum zur bei jetzt nun"
    ),
    patterns=(
        *_patterns("residence", "wohnt in|wohne in|wohnen in|wohnt im|lebt in|lebe in|leben in|lebt im|wohnhaft in"),
        *_patterns(
            "residence",
            "nach * gezogen|nach * umgezogen|zieht nach|zog nach|ziehen nach|umgezogen nach|gezogen nach|"
            "nach * ausgewandert|ausgewandert nach",
            cue=True,
        ),
        *_patterns("origin", "kommt aus|komme aus|stammt aus|stamme aus|geboren in|aufgewachsen in"),
        *_patterns(
            "employer",
            "arbeitet bei|arbeite bei|arbeiten bei|arbeitet fur|arbeite fur|angestellt bei|bei * angestellt|"
            "beschaftigt bei|bei * beschaftigt|tatig bei|bei * tatig",
        ),
        *_patterns(
            "employer",
            "zu * gewechselt|wechselt zu|wechselte zu|gewechselt zu|bei * angefangen|fangt bei * an|"
            "neue stelle bei|neuen job bei|job bei",
            cue=True,
        ),
        *_none("employer", "arbeitslos|erwerbslos|rentner|rentnerin|pensioniert|in rente"),
        *_patterns("workplace", "arbeitet in|arbeite in|arbeiten in|pendelt nach"),
        *_patterns("title", "arbeitet als|arbeite als|arbeiten als|tatig als|als * tatig|beruflich"),
        *_patterns("title", "geworden|wurde zum|wurde zur|befordert zum|befordert zur|umgeschult zum", cue=True),
        *_patterns("age", "* jahre alt|* jahr alt"),
        *_patterns("age", "wurde|ist * geworden|wird", cue=True),
        *_patterns("name", "heisst|heisse|heissen|namens|mit namen|name ist|nennt sich|genannt"),
        *_patterns("spouse", "verheiratet mit|ehefrau von|ehemann von"),
        *_patterns("spouse", "heiratete|hat * geheiratet|geheiratet", cue=True),
        *_patterns("partner", "zusammen mit|liiert mit|in einer beziehung mit|freund von|freundin von"),
        *_patterns("partner", "verlobt mit|hat sich mit * verlobt", cue=True),
        *_none("partner", "ledig|single|geschieden|verwitwet|getrennt"),
        *_patterns("like", "mag|mogen|liebt|liebe|lieben|begeistert von|fan von|steht auf"),
        *_patterns("like", "gerne|gern", adverb=True),
        *_patterns("like", "hasst|hasse|hassen|verabscheut|allergisch gegen|kann * nicht leiden", polarity=-1),
        *_patterns("prefer", "bevorzugt|bevorzuge|bevorzugen|lieber|am liebsten|vorzugsweise", adverb=True),
    ),
    attributes={
        "wohnort": "residence",
        "wohnsitz": "residence",
        "adresse": "residence",
        "zuhause": "residence",
        "heimatstadt": "origin",
        "arbeitgeber": "employer",
        "firma": "employer",
        "arbeitgeberin": "employer",
        "beruf": "title",
        "job": "title",
        "stelle": "title",
        "position": "title",
        "alter": "age",
        "name": "name",
        "vorname": "name",
    },
    relations={
        "ehemann": "spouse",
        "ehefrau": "spouse",
        "gatte": "spouse",
        "gattin": "spouse",
        "mann": "spouse",
        "frau": "spouse",
        "partner": "partner",
        "partnerin": "partner",
        "freundin": "partner",
        "freund": "partner",
        "lebensgefahrte": "partner",
        "lebensgefahrtin": "partner",
        "chef": "boss",
        "chefin": "boss",
        "vorgesetzter": "boss",
        "vorgesetzte": "boss",
        "arzt": "doctor",
        "arztin": "doctor",
        "hausarzt": "doctor",
        "hausarztin": "doctor",
    },
    employer_prepositions=_w("bei"),
    title_prepositions=_w("als"),
    conjunctions=_w("und aber dann"),
    comparatives=_phrases("als|statt|anstatt"),
    cue_phrases=_phrases("seit kurzem|in letzter zeit|ab jetzt|im moment"),
    people=_w(
        "person mensch mann frau kind kinder baby sohn tochter mutter vater mama papa mutti vati eltern bruder "
        "schwester geschwister zwilling oma opa grossmutter grossvater enkel enkelin tante onkel cousin cousine "
        "neffe nichte ehemann ehefrau gatte gattin partner partnerin freund freundin verlobter verlobte nachbar "
        "nachbarin kollege kollegin chef chefin vorgesetzter vorgesetzte mitbewohner mitbewohnerin vermieter "
        "vermieterin babysitter arzt arztin hausarzt zahnarzt zahnarztin therapeut therapeutin lehrer lehrerin "
        "trainer trainerin anwalt anwaltin steuerberater schuler schulerin patenkind pate patin"
    ),
)

_FR = Language(
    code="fr",
    function_words=_w(
        "quel quelle quels quelles qui quand comment pourquoi quoi combien le la les l un une des du de d ce cet cette ces est sont suis es etait etaient ete etre a ai as ont avait "
        "avoir il elle ils elles lui leur leurs son sa ses se s c qu que qui quoi dont ou en au aux dans sur sous "
        "par pour avec sans chez vers et mais car donc or ni tres bien y"
    ),
    user_words=_w("utilisateur utilisatrice utilisateurs je j moi me m mon ma mes mien mienne nous notre nos"),
    user_owner=_phrases("de l utilisateur|de l utilisatrice|de moi|de nous"),
    copulas=_w("est suis sont etait c"),
    negations=_w("ne n pas jamais aucun aucune"),
    cues=_w(
        "maintenant desormais actuellement depuis nouveau nouvelle nouvel nouveaux nouvelles fait correction "
        "plutot plus change changement recemment dorenavant aujourd hui devenu devenue corrige pardon reporte reportee decale decalee"
    ),
    additive=_w("aussi egalement autre deuxieme second seconde troisieme encore"),
    replace_forward=_phrases(
        "au lieu de|au lieu du|au lieu d|plutot que|plutot qu|quitte|vendu|arrete de|arrete|abandonne|resilie|"
        "divorce de|separe de|rompu avec|laisse tomber"
    ),
    replace_backward=(),
    connectors=_w(
        "dernier derniere hier aujourd demain prochain prochaine et mais parce depuis comme avec pour jusqu ou quand apres avant en au aux dans chez maintenant desormais plutot"
    ),
    patterns=(
        *_patterns(
            "residence",
            "habite a|habite au|habite en|habite aux|habite dans|habitent a|habite|j habite|vit a|vit au|vit en|"
            "vis a|vis au|vis en|vivent a|reside a|reside au|reside en|loge a",
        ),
        *_patterns(
            "residence",
            "demenage a|demenage au|demenage en|demenage dans|demenage pour|emmenage a|emmenage au|emmenage en|"
            "emmenage dans|installe a|installe au|installe en|installee a|installee au|installee en|parti vivre a|"
            "partie vivre a|partis vivre a",
            cue=True,
        ),
        *_patterns("origin", "vient de|viens de|originaire de|ne a|nee a|grandi a"),
        *_patterns(
            "employer",
            "travaille chez|travaille pour|travaillent chez|travaillent pour|employe chez|employee chez|"
            "employe par|employee par|est chez|suis chez|salarie chez|salariee chez|bosse chez",
        ),
        *_patterns(
            "employer",
            "rejoint|rejoindre|rejoindra|embauche chez|embauchee chez|embauche par|entre chez|entree chez|commence chez|"
            "nouveau poste chez|nouveau travail chez",
            cue=True,
        ),
        *_none("employer", "chomage|sans emploi|retraite|retraitee"),
        *_patterns("workplace", "travaille a|travaille en|travaille dans"),
        *_patterns("title", "travaille comme|travaille en tant que|travaillent comme|exerce comme|metier est"),
        *_patterns("title", "devenu|devenue|devient|promu|promue|reconverti en|reconvertie en", cue=True),
        *_patterns("age", "a * ans|ai * ans|* ans|age de"),
        *_patterns("age", "fete ses|a eu * ans|ai eu * ans", cue=True),
        *_patterns("name", "s appelle|m appelle|appelle|se nomme|nomme|nommee|prenom est|nom est|surnomme"),
        *_patterns("spouse", "marie a|mariee a|marie avec|mariee avec|epoux de|epouse de"),
        *_patterns("spouse", "epouse|s est marie avec|s est mariee avec|epouse|a epouse", cue=True),
        *_patterns("partner", "en couple avec|sort avec|vit avec|ensemble avec"),
        *_patterns("partner", "fiance a|fiancee a|fiance avec|fiancee avec", cue=True),
        *_none("partner", "celibataire|divorce|divorcee|veuf|veuve|separe|separee"),
        *_patterns("like", "aime|aiment|adore|adorent|apprecie|apprecient|fan de|passionne de|passionnee de"),
        *_patterns("like", "deteste|detestent|hait|haissent|allergique a|allergique au|allergique aux", polarity=-1),
        *_patterns("prefer", "prefere|preferent|aime mieux|prefererait"),
    ),
    attributes={
        "domicile": "residence",
        "adresse": "residence",
        "ville": "residence",
        "employeur": "employer",
        "entreprise": "employer",
        "societe": "employer",
        "metier": "title",
        "profession": "title",
        "poste": "title",
        "travail": "title",
        "age": "age",
        "nom": "name",
        "prenom": "name",
    },
    relations={
        "mari": "spouse",
        "femme": "spouse",
        "epoux": "spouse",
        "epouse": "spouse",
        "copain": "partner",
        "copine": "partner",
        "compagnon": "partner",
        "compagne": "partner",
        "partenaire": "partner",
        "chef": "boss",
        "patron": "boss",
        "patronne": "boss",
        "responsable": "boss",
        "manager": "boss",
        "medecin": "doctor",
        "docteur": "doctor",
    },
    employer_prepositions=_w("chez"),
    title_prepositions=_w("comme"),
    conjunctions=_w("et mais puis"),
    comparatives=_phrases("a|au|aux|plutot que|plutot qu"),
    cue_phrases=_phrases("en fait|depuis peu|ces temps ci|a present|en ce moment"),
    people=_w(
        "personne homme femme enfant enfants bebe fils fille mere pere maman papa parents frere soeur jumeau "
        "jumelle mamie papi tante oncle cousin cousine "
        "neveu niece mari epouse conjoint conjointe compagnon compagne copain copine fiance "
        "fiancee ami amie voisin voisine collegue patron patronne chef responsable colocataire proprietaire "
        "locataire nounou medecin docteur dentiste therapeute psy professeur prof instituteur "
        "institutrice entraineur avocat avocate comptable eleve filleul filleule parrain marraine"
    ),
)

_ES = Language(
    code="es",
    function_words=_w(
        "que cual cuales quien quienes donde cuando como cuanto cuantos cuanta cuantas porque el la los las lo un una unos unas del al de es son soy eres era eran fue ser esta estan estoy ha he han "
        "hay tiene tengo tienen se le les su sus que quien cual donde en a con por para sin sobre entre y o pero "
        "muy mas ya"
    ),
    user_words=_w("usuario usuaria usuarios yo me mi mis mio mia nosotros nosotras nuestro nuestra nuestros"),
    user_owner=_phrases("del usuario|de la usuaria|de mi|de nosotros"),
    copulas=_w("es soy son era"),
    negations=_w("no nunca jamas tampoco ni"),
    cues=_w(
        "ahora actualmente desde nuevo nueva nuevos nuevas realidad correccion cambio cambie cambiado recientemente "
        "hoy ultimamente perdon corrijo aplazado aplazada pospuesto pospuesta"
    ),
    additive=_w("tambien ademas otro otra segundo segunda tercer"),
    replace_forward=_phrases(
        "en lugar de|en vez de|dejo de|deje de|dejo|deje|vendio|vendi|abandono|abandone|cancelo|cancele|"
        "se divorcio de|me divorcie de|salio de|sali de|renuncio a|renuncie a|rompio con|rompi con"
    ),
    replace_backward=(),
    connectors=_w(
        "pasado pasada ayer hoy manana proximo proxima y pero porque desde como con para hasta donde cuando despues antes en al ahora que"
    ),
    patterns=(
        *_patterns("residence", "vive en|vivo en|viven en|vivimos en|reside en|resido en|residen en"),
        *_patterns(
            "residence",
            "se mudo a|me mude a|se ha mudado a|me he mudado a|nos hemos mudado a|nos mudamos a|mudado a|"
            "se traslado a|me traslade a|trasladado a|se fue a vivir a|me fui a vivir a|se muda a|me mudo a|"
            "ido a vivir a|irse a vivir a",
            cue=True,
        ),
        *_patterns("origin", "es de|soy de|viene de|vengo de|nacio en|naci en|crecio en|creci en"),
        *_patterns("employer", "trabaja en|trabajo en|trabajan en|trabaja para|trabajo para|trabajan para"),
        *_patterns(
            "employer",
            "empezo a trabajar en|empece a trabajar en|se unio a|me uni a|entro en|entre en|contratado por|"
            "contratada por|nuevo trabajo en",
            cue=True,
        ),
        *_none("employer", "desempleado|desempleada|en paro|parado|parada|jubilado|jubilada"),
        *_patterns("title", "trabaja como|trabajo como|trabajan como|trabaja de|trabajo de|trabajan de"),
        *_patterns("title", "se hizo|se convirtio en|me converti en|ascendido a|ascendida a", cue=True),
        *_patterns("age", "tiene * anos|tengo * anos|* anos"),
        *_patterns("age", "cumplio|cumpli|cumple|cumplo", cue=True),
        *_patterns("name", "se llama|me llamo|llamado|llamada|nombre es|de nombre|apodado|apodada"),
        *_patterns("spouse", "casado con|casada con|esposo de|esposa de"),
        *_patterns("spouse", "se caso con|me case con|caso con", cue=True),
        *_patterns("partner", "sale con|salgo con|en pareja con|novio de|novia de"),
        *_patterns("partner", "prometido con|prometida con|comprometido con|comprometida con", cue=True),
        *_none("partner", "soltero|soltera|divorciado|divorciada|viudo|viuda|separado|separada"),
        *_patterns(
            "like",
            "le gusta|me gusta|le gustan|me gustan|le encanta|me encanta|le encantan|me encantan|le interesa|"
            "me interesa|le interesan|me interesan|ama|amo|adora|"
            "adoro|disfruta|disfruto|fan de|aficionado a|aficionada a",
        ),
        *_patterns("like", "odia|odio|detesta|detesto|alergico a|alergica a", polarity=-1),
        *_patterns("prefer", "prefiere|prefiero|prefieren"),
    ),
    attributes={
        "domicilio": "residence",
        "direccion": "residence",
        "ciudad": "residence",
        "empresa": "employer",
        "empleador": "employer",
        "profesion": "title",
        "trabajo": "title",
        "puesto": "title",
        "oficio": "title",
        "edad": "age",
        "nombre": "name",
    },
    relations={
        "esposo": "spouse",
        "esposa": "spouse",
        "marido": "spouse",
        "mujer": "spouse",
        "novio": "partner",
        "novia": "partner",
        "pareja": "partner",
        "jefe": "boss",
        "jefa": "boss",
        "medico": "doctor",
        "medica": "doctor",
        "doctora": "doctor",
    },
    employer_prepositions=_w("en para"),
    title_prepositions=_w("como de"),
    conjunctions=_w("y pero luego"),
    comparatives=_phrases("a|al|que|mas que|en lugar de|en vez de"),
    cue_phrases=_phrases("en realidad|desde hace poco|hoy en dia|ultimamente|en este momento"),
    people=_w(
        "persona hombre mujer nino nina ninos hijo hija hijos bebe madre padre mama papa padres hermano hermana "
        "gemelo gemela abuela abuelo abuelos nieto nieta tia tio primo prima sobrino sobrina marido esposo esposa "
        "pareja novio novia prometido prometida amigo amiga vecino vecina companero companera colega jefe jefa "
        "encargado encargada casero casera inquilino canguro ninera medico medica doctor doctora "
        "dentista terapeuta profesor profesora maestro maestra entrenador entrenadora abogado abogada contable "
        "alumno alumna ahijado ahijada padrino madrina suegra suegro cunado cunada"
    ),
)

_PT = Language(
    code="pt",
    function_words=_w(
        "sem qual quais quem quando como quanto quantos quanta quantas porque o a os as um uma uns umas do da dos das de no na nos nas ao aos em é e sou sao era foi ser esta estao "
        "estou tem tenho teem ha se lhe lhes seu sua seus suas que quem qual onde com por para pelo pela sem sobre "
        "entre ou mas muito mais ja"
    ),
    user_words=_w("utilizador utilizadora usuario usuaria eu me mim meu minha meus minhas nos nosso nossa"),
    user_owner=_phrases("do utilizador|da utilizadora|do usuario|da usuaria|de mim"),
    copulas=_w("é sou sao era"),
    negations=_w("nao nunca jamais nem"),
    cues=_w(
        "agora atualmente actualmente desde novo nova novos novas verdade afinal correcao mudou mudei recentemente "
        "hoje ultimamente desculpa enganei engano adiado adiada"
    ),
    additive=_w("tambem alem outro outra segundo segunda terceiro"),
    replace_forward=_phrases(
        "em vez de|em vez do|em vez da|ao inves de|deixou de|deixei de|deixou|deixei|saiu da|saiu do|sai da|"
        "sai do|vendeu|vendi|largou|larguei|cancelou|cancelei|divorciou se de|separou se de|acabou com"
    ),
    replace_backward=(),
    connectors=_w(
        "passado passada ontem hoje amanha proximo proxima e mas porque desde como com para ate onde quando depois antes em no na agora ao do"
    ),
    patterns=(
        *_patterns(
            "residence",
            "mora em|mora no|mora na|moro em|moro no|moro na|moram em|vive em|vive no|vive na|vivo em|vivo no|"
            "vivo na|reside em|reside no|reside na",
        ),
        *_patterns(
            "residence",
            "mudou se para|mudei me para|se mudou para|me mudei para|mudou para|mudei para|mudamos para|"
            "mudaram se para|foi viver para|fui viver para|foi morar para|fui morar para",
            cue=True,
        ),
        *_patterns("origin", "é de|sou de|vem de|venho de|nasceu em|nasci em|cresceu em|cresci em"),
        *_patterns(
            "employer",
            "trabalha na|trabalha no|trabalha em|trabalha para|trabalho na|trabalho no|trabalho em|trabalho para|"
            "trabalham na|trabalham no|trabalham em",
        ),
        *_patterns(
            "employer",
            "entrou na|entrou no|entrou para|entrei na|entrei no|entrei para|comecou a trabalhar na|"
            "comecou a trabalhar no|comecei a trabalhar na|comecei a trabalhar no|contratado pela|contratada pela",
            cue=True,
        ),
        *_none("employer", "desempregado|desempregada|reformado|reformada|aposentado|aposentada"),
        *_patterns("title", "trabalha como|trabalho como|trabalham como|exerce como"),
        *_patterns("title", "tornou se|tornei me|passou a ser|promovido a|promovida a", cue=True),
        *_patterns("age", "tem * anos|tenho * anos|* anos"),
        *_patterns("age", "fez|fiz|faz * anos|completou|completei", cue=True),
        *_patterns("name", "chama se|se chama|me chamo|chamado|chamada|nome é|de nome|alcunha"),
        *_patterns("spouse", "casado com|casada com|marido de|mulher de|esposa de"),
        *_patterns("spouse", "casou com|casei com|casou se com", cue=True),
        *_patterns("partner", "namora com|namoro com|namorado de|namorada de"),
        *_patterns("partner", "noivo de|noiva de|noivou com|ficou noivo de|ficou noiva de", cue=True),
        *_none("partner", "solteiro|solteira|divorciado|divorciada|viuvo|viuva|separado|separada"),
        *_patterns("like", "gosta de|gosto de|gostam de|gosta do|gosta da|adora|adoro|ama|amo|fa de"),
        *_patterns("like", "odeia|odeio|detesta|detesto|alergico a|alergica a", polarity=-1),
        *_patterns("prefer", "prefere|prefiro|preferem"),
    ),
    attributes={
        "morada": "residence",
        "residencia": "residence",
        "cidade": "residence",
        "empresa": "employer",
        "empregador": "employer",
        "profissao": "title",
        "emprego": "title",
        "cargo": "title",
        "trabalho": "title",
        "idade": "age",
        "nome": "name",
    },
    relations={
        "marido": "spouse",
        "mulher": "spouse",
        "esposa": "spouse",
        "esposo": "spouse",
        "namorado": "partner",
        "namorada": "partner",
        "companheiro": "partner",
        "companheira": "partner",
        "chefe": "boss",
        "medico": "doctor",
        "medica": "doctor",
    },
    employer_prepositions=_w("na no em para"),
    title_prepositions=_w("como"),
    conjunctions=_w("e mas depois"),
    comparatives=_phrases("a|ao|à|do que|em vez de"),
    cue_phrases=_phrases("na verdade|ha pouco|hoje em dia|neste momento"),
    people=_w(
        "pessoa homem mulher crianca criancas bebe filho filha filhos mae pai mamae papai pais irmao irma gemeo "
        "gemea avo avos neto neta tia tio primo prima sobrinho sobrinha marido esposo esposa companheiro "
        "companheira namorado namorada noivo noiva amigo amiga vizinho vizinha colega chefe patrao patroa senhorio "
        "senhoria inquilino ama baba medico medica doutor doutora dentista terapeuta professor professora "
        "treinador treinadora advogado advogada contabilista aluno aluna afilhado afilhada padrinho madrinha sogra "
        "sogro cunhado cunhada"
    ),
)

_IT = Language(
    code="it",
    function_words=_w(
        "cosa quale quali chi quando come quanto quanti quanta quante perche il lo la i gli le l un uno una un del dello della dei degli delle dell al allo alla ai agli alle all di "
        "da dal dalla dai in nel nella nei con su per tra fra è e sono era erano essere ha ho hanno aveva si ci "
        "suo sua suoi sue che chi cui dove o ma molto piu gia"
    ),
    user_words=_w("utente utenti io me mi mio mia miei mie noi ci nostro nostra nostri"),
    user_owner=_phrases("dell utente|di me|di noi"),
    copulas=_w("è sono era"),
    negations=_w("non mai ne nessun nessuno nessuna"),
    cues=_w(
        "ora adesso attualmente nuovo nuova nuovi nuove realta correzione ormai recentemente oggi cambiato "
        "cambiata scusa anzi rinviato rinviata posticipato posticipata spostato spostata"
    ),
    additive=_w("anche pure inoltre altro altra secondo seconda terzo"),
    replace_forward=_phrases(
        "invece di|invece del|invece della|anziche|ha lasciato|ho lasciato|lasciato|venduto|smesso di|smesso|"
        "ha mollato|divorziato da|divorziata da|separato da|separata da"
    ),
    replace_backward=(),
    connectors=_w(
        "scorso scorsa ieri oggi domani prossimo prossima e ma perche da dal dalla come con per fino dove quando dopo prima in a ora adesso piuttosto al alla"
    ),
    patterns=(
        *_patterns(
            "residence",
            "vive a|vive in|vivo a|vivo in|vivono a|abita a|abita in|abito a|abito in|abitano a|risiede a|risiede in",
        ),
        *_patterns(
            "residence",
            "si e trasferito a|si e trasferita a|si e trasferito in|si e trasferita in|mi sono trasferito a|"
            "mi sono trasferita a|trasferito a|trasferita a|trasferito in|trasferita in|trasferiti a|"
            "andato a vivere a|andata a vivere a",
            cue=True,
        ),
        *_patterns("origin", "è di|sono di|viene da|vengo da|nato a|nata a|cresciuto a|cresciuta a"),
        *_patterns(
            "employer",
            "lavora per|lavora presso|lavora da|lavora alla|lavora all|lavora al|lavoro per|lavoro presso|lavoro da|"
            "lavoro alla|lavoro al|lavorano per|dipendente di",
        ),
        *_patterns(
            "employer",
            "e entrato in|e entrata in|e entrato alla|e entrata alla|assunto da|assunta da|assunto in|assunta in",
            cue=True,
        ),
        *_none("employer", "disoccupato|disoccupata|in pensione|pensionato|pensionata"),
        *_patterns("workplace", "lavora a|lavora in|lavoro a|lavoro in"),
        *_patterns(
            "title",
            "lavora come|lavoro come|lavorano come|fa il|fa la|faccio il|faccio la|fa l|faccio l|fai l|fai il|fai la",
        ),
        *_patterns("title", "diventato|diventata|promosso a|promossa a", cue=True),
        *_patterns("age", "ha * anni|ho * anni|* anni"),
        *_patterns("age", "compiuto|compie|compio", cue=True),
        *_patterns("name", "si chiama|mi chiamo|chiamato|chiamata|di nome|nome è|soprannominato|soprannominata"),
        *_patterns("spouse", "sposato con|sposata con|marito di|moglie di"),
        *_patterns("spouse", "si e sposato con|si e sposata con|ha sposato|sposato|sposata", cue=True),
        *_patterns("partner", "sta con|esce con|fidanzato di|fidanzata di"),
        *_patterns("partner", "fidanzato con|fidanzata con|si e fidanzato con|si e fidanzata con", cue=True),
        *_none("partner", "single|celibe|nubile|divorziato|divorziata|vedovo|vedova"),
        *_patterns("like", "piace|piacciono|ama|amo|adora|adoro|appassionato di|appassionata di"),
        *_patterns("like", "odia|odio|detesta|detesto|allergico a|allergica a", polarity=-1),
        *_patterns("prefer", "preferisce|preferisco|preferiscono"),
    ),
    attributes={
        "residenza": "residence",
        "indirizzo": "residence",
        "citta": "residence",
        "azienda": "employer",
        "datore": "employer",
        "ditta": "employer",
        "professione": "title",
        "lavoro": "title",
        "mestiere": "title",
        "eta": "age",
        "nome": "name",
    },
    relations={
        "marito": "spouse",
        "moglie": "spouse",
        "fidanzato": "partner",
        "fidanzata": "partner",
        "compagno": "partner",
        "compagna": "partner",
        "capo": "boss",
        "responsabile": "boss",
        "medico": "doctor",
        "dottore": "doctor",
    },
    employer_prepositions=_w("per presso da"),
    title_prepositions=_w("come"),
    conjunctions=_w("e ma poi"),
    comparatives=_phrases("a|al|alla|allo|piuttosto che|rispetto a|invece di"),
    cue_phrases=_phrases("in realta|da poco|al momento|di recente"),
    people=_w(
        "persona uomo donna bambino bambina bambini figlio figlia figli madre padre mamma papa genitori fratello "
        "sorella gemello gemella nonna nonno nonni nipote zia zio cugino cugina marito moglie compagno compagna "
        "fidanzato fidanzata ragazzo ragazza amico amica vicino vicina collega capo responsabile coinquilino "
        "coinquilina padrone padrona inquilino babysitter tata medico dottore dottoressa dentista terapeuta "
        "professore professoressa maestro maestra allenatore allenatrice avvocato avvocata commercialista alunno "
        "alunna figlioccio figlioccia padrino madrina suocera suocero cognato cognata"
    ),
)

_NL = Language(
    code="nl",
    function_words=_w(
        "wat welke welk wie waar wanneer hoe waarom hoeveel de het een is zijn ben was waren heeft heb hebben had wordt worden werd hij zij ze hem haar hun zijn "
        "zich te van in op aan bij met voor naar uit over onder en of maar want dat die dit deze er al zeer heel"
    ),
    user_words=_w("gebruiker gebruikster ik mij me mijn wij we ons onze"),
    user_owner=_phrases("van de gebruiker|van mij|van ons"),
    copulas=_w("is ben zijn was"),
    negations=_w("niet geen nooit"),
    cues=_w(
        "nu tegenwoordig sinds nieuwe nieuw eigenlijk correctie meer inmiddels onlangs veranderd verschoven verplaatst kort"
    ),
    additive=_w("ook eveneens tweede andere derde"),
    replace_forward=_phrases("in plaats van|gestopt met|weg bij|opgezegd bij"),
    replace_backward=_phrases("verkocht|opgezegd|verlaten|opgegeven"),
    connectors=_w(
        "vorig vorige gisteren vandaag morgen volgend volgende en maar omdat sinds als met voor tot waar wanneer na in bij nu boven dan"
    ),
    patterns=(
        *_patterns("residence", "woont in|woon in|wonen in|woont op|leeft in"),
        *_patterns(
            "residence",
            "verhuisd naar|verhuist naar|verhuisde naar|verhuizen naar|naar * verhuisd|naar * verhuist",
            cue=True,
        ),
        *_patterns("origin", "komt uit|kom uit|geboren in|opgegroeid in"),
        *_patterns("employer", "werkt bij|werk bij|werken bij|werkt voor|werk voor|werken voor|in dienst bij"),
        *_patterns("employer", "begonnen bij|begint bij|overgestapt naar|nieuwe baan bij", cue=True),
        *_none("employer", "werkloos|gepensioneerd|met pensioen"),
        *_patterns("title", "werkt als|werk als|werken als"),
        *_patterns("title", "geworden|gepromoveerd tot", cue=True),
        *_patterns("age", "is * jaar|ben * jaar|* jaar oud"),
        *_patterns("age", "werd|wordt * jaar", cue=True),
        *_patterns("name", "heet|heten|genaamd|naam is"),
        *_patterns("spouse", "getrouwd met"),
        *_patterns("spouse", "trouwde met|is getrouwd met", cue=True),
        *_patterns("partner", "samen met|verkering met"),
        *_patterns("partner", "verloofd met", cue=True),
        *_none("partner", "vrijgezel|gescheiden|weduwe|weduwnaar"),
        *_patterns("like", "houdt van|hou van|houd van|dol op|fan van"),
        *_patterns("like", "graag", adverb=True),
        *_patterns("like", "haat|haten|allergisch voor", polarity=-1),
        *_patterns("prefer", "liever|voorkeur", adverb=True),
    ),
    attributes={
        "woonplaats": "residence",
        "adres": "residence",
        "werkgever": "employer",
        "bedrijf": "employer",
        "beroep": "title",
        "baan": "title",
        "functie": "title",
        "leeftijd": "age",
        "naam": "name",
    },
    relations={
        "man": "spouse",
        "vrouw": "spouse",
        "echtgenoot": "spouse",
        "echtgenote": "spouse",
        "vriend": "partner",
        "vriendin": "partner",
        "partner": "partner",
        "baas": "boss",
        "leidinggevende": "boss",
        "manager": "boss",
        "dokter": "doctor",
        "huisarts": "doctor",
    },
    employer_prepositions=_w("bij voor"),
    title_prepositions=_w("als"),
    conjunctions=_w("en maar dan"),
    comparatives=_phrases("boven|dan|in plaats van"),
    cue_phrases=_phrases("sinds kort|tegenwoordig|op dit moment"),
    people=_w(
        "persoon man vrouw kind kinderen baby zoon dochter moeder vader mama papa ouders broer zus zuster tweeling "
        "oma opa grootmoeder grootvader kleinzoon kleindochter kleinkind tante oom neef nicht echtgenoot "
        "echtgenote partner vriend vriendin verloofde buurman buurvrouw buren collega baas chef leidinggevende "
        "huisgenoot huisbaas verhuurder oppas arts huisarts dokter tandarts therapeut leraar lerares juf meester "
        "trainer advocaat boekhouder leerling petekind peetoom peettante schoonmoeder schoonvader zwager schoonzus"
    ),
)

LANGUAGES: tuple[Language, ...] = (_EN, _DE, _FR, _ES, _PT, _IT, _NL)
"""In order of preference when a text fits two languages equally well."""

PEOPLE: frozenset[str] = frozenset().union(*(language.people for language in LANGUAGES))
"""Every language's nouns for a person: the language of a short fact is a guess, and a relation folds to English
("Ehemann" → spouse)."""

NUMBER_WORDS = _w(
    "zero one two three four five six seven eight nine ten eleven twelve "
    "null eins zwei drei vier funf sechs sieben acht neun zehn elf zwolf "
    "un deux trois quatre cinq six sept huit neuf dix onze douze "
    "uno dos tres cuatro cinco seis siete ocho nueve diez once doce "
    "um dois duas tres quatro cinco seis sete oito nove dez onze doze "
    "uno due tre quattro cinque sei sette otto nove dieci undici dodici "
    "een twee drie vier vijf zes zeven acht negen tien elf twaalf"
)
