"""Compose the training set from the authored pools: `python -m guardian_mcp.training.compose --out FILE`.

Deterministic for a seed. Every record is `{"text", "label", "kind", "surface", "lang", "part", "payload"}`:

- `kind`: `direct` (an attack typed into chat), `indirect` (an attack hidden in an e-mail, page, file or tool
  output), `jailbreak`, or `benign` (ordinary text and hard negatives, on every surface);
- `payload`: for indirect records, the inserted attack as it appears in the text, so training can tell the
  windows that hold it from the ordinary windows of the same document (those are benign examples too);
- `hard`: only on `quoted.py`'s data files (benign texts holding attacks as data), `owner.py`'s chat messages
  (the owner talking about instructions, security, AI and personas) and `triggers.py`'s short requests (attack
  words in their ordinary senses), always `true`: calibration counts them
  among the hard negatives and training keeps all their windows;
- `part`: `fit` or `calib`. Every pool item (goal, opening, sentence, hard negative, persona...) belongs to
  one part by a hash of its text, and a record is built from one part's items only: the calibration records
  (thresholds, Platt scaling) share no authored sentence with the records the network is fitted on.

Names, addresses, companies, amounts and IBANs come from Faker (MIT) in each language's locale.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Protocol

from faker import Faker

from guardian_mcp.training import attacks, benign, owner, quoted, triggers
from guardian_mcp.training.quoted import pick
from guardian_mcp.training.split import CALIB_MOD, Pools

LANGS = ("en", "es", "de", "fr", "pl", "pt")
LANG_WEIGHTS = (0.4, 0.12, 0.12, 0.12, 0.12, 0.12)
LOCALES = {"en": "en_GB", "es": "es_ES", "de": "de_DE", "fr": "fr_FR", "pl": "pl_PL", "pt": "pt_BR"}
# Records per kind. `quoted` are benign files, pages, mails and tool outputs that hold attack strings as data,
# `ordered` indirect attacks addressed to the assistant inside realistic documents (`quoted.py`); `owner` the
# owner's chat messages about instructions, security, AI and harmless personas, `persona` the same personas asked
# to drop their rules, a jailbreak (`owner.py`); `trigger` short benign requests that use attack words in their
# ordinary senses (`triggers.py`). New kinds go last: the earlier kinds' records stay the same.
COUNTS = {
    "direct": 2500,
    "indirect": 2500,
    "jailbreak": 2500,
    "benign": 7000,
    "quoted": 1200,
    "ordered": 600,
    "owner": 2000,
    "persona": 600,
    "trigger": 1500,
}
# Faker draws dates up to "now" unless told otherwise: a fixed end keeps a seed's records the same on every run.
DATES_END = datetime(2026, 1, 1)


LOCAL: dict[str, dict[str, list[str]]] = {
    "subject": {
        "en": [
            "Re: invoice",
            "Meeting notes",
            "Your order",
            "Quick question",
            "Weekend plans",
            "Project update",
            "Fwd: contract",
            "Welcome!",
            "Monthly newsletter",
            "Reminder",
        ],
        "es": ["Re: factura", "Notas de la reunión", "Tu pedido", "Una pregunta", "Planes del finde", "Novedades"],
        "de": ["AW: Rechnung", "Protokoll", "Ihre Bestellung", "Kurze Frage", "Wochenende", "Projektstand"],
        "fr": ["RE : facture", "Compte rendu", "Votre commande", "Petite question", "Ce week-end", "Nouvelles"],
        "pl": ["Odp: faktura", "Notatki ze spotkania", "Twoje zamówienie", "Szybkie pytanie", "Weekend", "Aktualności"],
        "pt": ["Re: fatura", "Notas da reunião", "O seu pedido", "Pergunta rápida", "Fim de semana", "Novidades"],
    },
    "greeting": {
        "en": ["Hi {first},", "Dear {first},", "Hello {first},", "Hey,", "Good morning,"],
        "es": ["Hola {first}:", "Estimado {first}:", "Buenos días,"],
        "de": ["Hallo {first},", "Liebe Grüße vorab,", "Sehr geehrte Damen und Herren,", "Moin {first},"],
        "fr": ["Bonjour {first},", "Cher {first},", "Salut,"],
        "pl": ["Cześć {first},", "Dzień dobry,", "Szanowni Państwo,"],
        "pt": ["Olá {first},", "Bom dia,", "Prezado {first},"],
    },
    "closing": {
        "en": ["Best regards,", "Thanks,", "Cheers,", "Kind regards,", "All the best,"],
        "es": ["Un saludo,", "Gracias,", "Atentamente,"],
        "de": ["Viele Grüße", "Beste Grüße", "Mit freundlichen Grüßen"],
        "fr": ["Cordialement,", "Bien à vous,", "Merci,"],
        "pl": ["Pozdrawiam,", "Z poważaniem,", "Dzięki,"],
        "pt": ["Atenciosamente,", "Abraços,", "Obrigado,"],
    },
    "footer": {
        "en": [
            "You are receiving this email because you subscribed. Unsubscribe | Privacy policy",
            "This message and any attachments are confidential. If you received it in error, delete it.",
        ],
        "es": ["Recibes este correo porque te suscribiste. Darse de baja | Privacidad"],
        "de": ["Sie erhalten diese E-Mail, weil Sie sich angemeldet haben. Abmelden | Datenschutz"],
        "fr": ["Vous recevez cet e-mail car vous êtes inscrit. Se désabonner | Confidentialité"],
        "pl": ["Otrzymujesz tę wiadomość, ponieważ zapisałeś się do newslettera. Wypisz się | Prywatność"],
        "pt": ["Você está recebendo este e-mail porque se inscreveu. Cancelar inscrição | Privacidade"],
    },
    "web": {
        "en": [
            "Home › Blog › Travel",
            "Accept cookies",
            "© 2025 All rights reserved.",
            "Related articles",
            "Share this page",
            "Sign in | Register",
            "Table of contents",
        ],
        "es": ["Inicio › Blog", "Aceptar cookies", "© 2025 Todos los derechos reservados.", "Artículos relacionados"],
        "de": ["Startseite › Blog", "Cookies akzeptieren", "© 2025 Alle Rechte vorbehalten.", "Ähnliche Artikel"],
        "fr": ["Accueil › Blog", "Accepter les cookies", "© 2025 Tous droits réservés.", "Articles similaires"],
        "pl": ["Strona główna › Blog", "Akceptuję cookies", "© 2025 Wszelkie prawa zastrzeżone.", "Podobne artykuły"],
        "pt": ["Início › Blog", "Aceitar cookies", "© 2025 Todos os direitos reservados.", "Artigos relacionados"],
    },
    "heading": {
        "en": [
            "Introduction",
            "How it works",
            "What you need",
            "Step 1",
            "Opening hours",
            "Reviews",
            "FAQ",
            "Summary",
            "Pricing",
            "Getting started",
        ],
        "es": ["Introducción", "Cómo funciona", "Ingredientes", "Horario", "Opiniones", "Preguntas frecuentes"],
        "de": ["Einleitung", "So funktioniert es", "Zutaten", "Öffnungszeiten", "Bewertungen", "Häufige Fragen"],
        "fr": ["Introduction", "Comment ça marche", "Ingrédients", "Horaires", "Avis", "Questions fréquentes"],
        "pl": ["Wstęp", "Jak to działa", "Składniki", "Godziny otwarcia", "Opinie", "Najczęstsze pytania"],
        "pt": ["Introdução", "Como funciona", "Ingredientes", "Horário", "Avaliações", "Perguntas frequentes"],
    },
}


class Composer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.fakers = {lang: Faker(locale) for lang, locale in LOCALES.items()}
        for index, faker in enumerate(self.fakers.values()):
            faker.seed_instance(seed + index)
        self.data_files = quoted.DataFiles(self)
        self.orders = quoted.Orders(self)
        self.owner = owner.OwnerChat(self)

    def date(self, lang: str) -> str:
        return str(self.fakers[lang].date(end_datetime=DATES_END))

    def moment(self, lang: str) -> str:
        return str(self.fakers[lang].date_time(end_datetime=DATES_END))

    # --- slots --------------------------------------------------------------------------------------------

    def fill(self, template: str, lang: str) -> str:
        fake = self.fakers[lang]
        domain = self.rng.choice(
            [
                "secure-verify.net",
                "mail-sync.io",
                "docs-share.top",
                "cdn-assets.xyz",
                fake.domain_name(),
                "analytics-collector.com",
                "bit.ly/3xK9q",
            ]
        )
        values = {
            "email": self.rng.choice([f"{fake.user_name()}@{domain}", fake.free_email(), f"admin@{domain}"]),
            "url": f"https://{domain}",
            "name": fake.name(),
            "amount": self.rng.choice(["€4,900", "2 500 zł", "$1,200", "3.000 €", "R$ 5.000", "£750"]),
            "iban": fake.iban(),
            "phone": fake.phone_number(),
            "product": self.rng.choice(["CryptoMax Pro", "VPN Ultra", "QuickLoans", "SuperDiet X", fake.company()]),
            "file": self.rng.choice(["notes.txt", "backup.zip", "passwords.kdbx", "report.pdf"]),
            "secret": self.rng.choice(["Windows 10 Pro keys", "napalm recipes", "credit card numbers"]),
            "conversation": "{conversation}",
        }
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError):
            return template

    def sentences(self, pools: Pools, count: int) -> str:
        lang = pools.lang
        out = []
        for _ in range(count):
            roll = self.rng.random()
            if roll < 0.7:
                out.append(self.fill(pools.pick(self.rng, benign.SENTENCES), lang))
            elif roll < 0.85 and lang != "en":
                # Faker's word lists are real words of the locale (English falls back to Latin, so not there).
                out.append(self.fakers[lang].sentence(nb_words=self.rng.randint(6, 14)))
            else:
                fake = self.fakers[lang]
                out.append(
                    self.rng.choice(
                        [
                            fake.address().replace("\n", ", "),
                            fake.catch_phrase(),
                            f"{fake.name()}, {fake.job()}",
                            fake.company(),
                        ]
                    )
                )
        return " ".join(out)

    def paragraphs(self, pools: Pools, count: int, hard: float) -> list[str]:
        out: list[str] = []
        for _ in range(count):
            if self.rng.random() < hard:
                paragraph = self.fill(pools.pick(self.rng, benign.HARD), pools.lang)
                if paragraph in out:
                    continue
            else:
                paragraph = self.sentences(pools, self.rng.randint(1, 4))
            out.append(paragraph)
        return out or [self.sentences(pools, 2)]

    # --- payloads -----------------------------------------------------------------------------------------

    def goal(self, pools: Pools, off_task: float = 0.12) -> str:
        pool = benign.OFF_TASK if self.rng.random() < off_task else attacks.GOALS
        return self.fill(pools.pick(self.rng, pool), pools.lang)

    def injection(self, pools: Pools, address: float = 0.35) -> str:
        goal = self.goal(pools)
        template = pools.pick(self.rng, attacks.OVERRIDES)
        if "{goal}" in template and not template.startswith("{goal}"):
            text = template.replace("{goal}", goal.rstrip("."))
        else:
            text = template.replace("{goal}", goal[:1].upper() + goal[1:].rstrip(".")) + "."
        if text.endswith(".."):
            text = text[:-1]
        if self.rng.random() < address:
            text = f"{pools.pick(self.rng, attacks.ADDRESSES)} {text}"
        return text

    def jailbreak(self, pools: Pools) -> str:
        if pools.lang != "en" and self.rng.random() < 0.6:
            return pools.pick(self.rng, attacks.JAILBREAK_FOREIGN, fallback=False)
        ask = pools.pick_list(self.rng, attacks.JAILBREAK_ASKS)
        rules = " ".join(self.rng.sample(attacks.JAILBREAK_RULES, self.rng.randint(1, 4)))
        persona = self.fill(pools.pick_list(self.rng, attacks.JAILBREAK_PERSONAS), "en")
        frame = pools.pick_list(self.rng, attacks.JAILBREAK_FRAMES)
        return frame.format(persona=persona, rules=rules, ask=ask, ask_bare=ask)

    # --- carriers -----------------------------------------------------------------------------------------

    def local(self, key: str, lang: str) -> str:
        return self.rng.choice(LOCAL[key][lang])

    def email(self, pools: Pools, body: list[str]) -> str:
        lang, fake = pools.lang, self.fakers[pools.lang]
        first = fake.first_name()
        parts = []
        if self.rng.random() < 0.6:
            parts.append(
                f"From: {fake.name()} <{fake.email()}>\nTo: {fake.email()}\nSubject: {self.local('subject', lang)}"
            )
        parts.append(self.local("greeting", lang).format(first=first))
        parts.extend(body)
        parts.append(f"{self.local('closing', lang)}\n{fake.name()}")
        if self.rng.random() < 0.3:
            quoted = self.sentences(pools, self.rng.randint(1, 3))
            parts.append("\n".join(f"> {line}" for line in quoted.split(". ")))
        if self.rng.random() < 0.3:
            parts.append(self.local("footer", lang))
        return "\n\n".join(parts)

    def web(self, pools: Pools, body: list[str]) -> str:
        lang = pools.lang
        parts = [self.local("web", lang), f"# {self.fakers[lang].catch_phrase()}"]
        for index, paragraph in enumerate(body):
            if index and self.rng.random() < 0.4:
                parts.append(f"## {self.local('heading', lang)}")
            parts.append(paragraph)
        parts.append(self.local("web", lang))
        text = "\n\n".join(parts)
        if self.rng.random() < 0.25:
            text = "<html><body>\n" + text.replace("\n\n", "\n<p>") + "\n</body></html>"
        return text

    def file(self, pools: Pools, body: list[str]) -> str:
        lang, fake = pools.lang, self.fakers[pools.lang]
        style = self.rng.choice(["notes", "code", "csv", "yaml", "minutes"])
        if style == "code":
            comments = "\n".join(f"# {line}" for line in body)
            fn = fake.word().lower()
            return (
                f'"""{fake.catch_phrase()}."""\n\nimport json\n\n{comments}\ndef {fn}_total(items):\n'
                f"    return sum(item['price'] for item in items)\n"
            )
        if style == "csv":
            rows = [
                f'{self.date(lang)},{fake.company().replace(",", "")},"{line}",{self.rng.randint(5, 900)}'
                for line in body
            ]
            return "date,company,note,amount\n" + "\n".join(rows)
        if style == "yaml":
            lines = "\n".join(f'  - "{line}"' for line in body)
            return f"name: {fake.word()}\nowner: {fake.name()}\nnotes:\n{lines}\n"
        if style == "minutes":
            items = "\n".join(f"- {line}" for line in body)
            return f"# {self.local('subject', lang)} — {self.date(lang)}\n\n{items}\n"
        return f"{fake.catch_phrase()}\n\n" + "\n\n".join(body)

    def tool(self, pools: Pools, body: list[str]) -> str:
        fake = self.fakers[pools.lang]
        style = self.rng.choice(["search", "calendar", "reviews", "issue", "field"])
        if style == "field":
            return " ".join(body)
        if style == "search":
            results = [{"title": fake.catch_phrase(), "url": fake.url(), "snippet": line} for line in body]
            data: object = {"results": results, "count": len(results)}
        elif style == "calendar":
            data = {
                "events": [
                    {
                        "summary": fake.catch_phrase(),
                        "start": self.moment(pools.lang),
                        "description": line,
                    }
                    for line in body
                ]
            }
        elif style == "reviews":
            data = {
                "product": fake.company(),
                "reviews": [{"rating": self.rng.randint(1, 5), "text": line} for line in body],
            }
        else:
            data = {
                "issue": self.rng.randint(10, 9999),
                "title": fake.catch_phrase(),
                "comments": [{"author": fake.user_name(), "body": line} for line in body],
            }
        return json.dumps(data, ensure_ascii=False, indent=self.rng.choice([None, 2]))

    def carrier(self, surface: str) -> Callable[[Pools, list[str]], str]:
        return {"email": self.email, "web": self.web, "file": self.file, "tool": self.tool}[surface]

    # --- records ------------------------------------------------------------------------------------------

    def record(self, kind: str, part: str) -> dict[str, object]:
        lang = self.rng.choices(LANGS, LANG_WEIGHTS)[0]
        pools = Pools(part, lang)
        payload = ""
        if kind == "quoted":
            text, surface = self.data_files.build(pools)
            return training_record(text, "benign", surface, lang, part, payload, hard=True)
        if kind == "ordered":
            text, surface, payload = self.orders.build(pools)
            if payload not in text:
                payload = json.dumps(payload, ensure_ascii=False)[1:-1]
            return training_record(text, "indirect", surface, lang, part, payload)
        if kind == "owner":
            return training_record(self.owner.talk(pools), "benign", "chat", lang, part, payload, hard=True)
        if kind == "persona":
            return training_record(self.owner.persona_attack(pools), "jailbreak", "chat", lang, part, payload)
        if kind == "trigger":
            text = self.fill(pick(self.rng, pools, triggers.REQUESTS), lang)
            if self.rng.random() < 0.4:
                text = self.owner.dress(pools, text)
            return training_record(text, "benign", "chat", lang, part, payload, hard=True)
        if kind == "direct":
            surface = "chat"
            text = self.injection(pools, address=0.05)
            if self.rng.random() < 0.3:
                text = f"{self.fill(pools.pick(self.rng, benign.REQUESTS), lang)} {text}"
        elif kind == "jailbreak":
            surface = self.rng.choices(["chat", "file", "web"], [0.8, 0.1, 0.1])[0]
            text = self.jailbreak(pools)
        elif kind == "indirect":
            surface = self.rng.choices(["email", "web", "file", "tool", "chat"], [0.3, 0.25, 0.15, 0.25, 0.05])[0]
            payload = self.rng.choice(attacks.WRAPPERS).replace("{p}", self.injection(pools))
            body = self.paragraphs(pools, self.rng.randint(1, 5), hard=0.15)
            body.insert(self.rng.randint(0, len(body)), payload)
            if surface == "chat":
                text = f"{self.fill(pools.pick(self.rng, benign.REQUESTS), lang)}\n\n" + "\n\n".join(body)
            else:
                text = self.carrier(surface)(pools, body)
            if surface == "tool" and payload not in text:
                payload = json.dumps(payload, ensure_ascii=False)[1:-1]
        else:
            surface = self.rng.choices(["chat", "email", "web", "file", "tool"], [0.2, 0.25, 0.2, 0.15, 0.2])[0]
            roll = self.rng.random()
            if surface == "chat":
                if roll < 0.55:
                    text = self.fill(pools.pick(self.rng, benign.REQUESTS), lang)
                elif roll < 0.85:
                    text = self.fill(pools.pick(self.rng, benign.HARD), lang)
                else:
                    pasted = self.fill(pools.pick(self.rng, benign.HARD), lang)
                    text = f"{self.fill(pools.pick(self.rng, benign.REQUESTS), lang)}\n\n{pasted}"
            else:
                hard = self.rng.choice([0.0, 0.3, 0.6])
                text = self.carrier(surface)(pools, self.paragraphs(pools, self.rng.randint(1, 5), hard=hard))
        return training_record(text, kind, surface, lang, part, payload)


def training_record(
    text: str, kind: str, surface: str, lang: str, part: str, payload: str, **extra: object
) -> dict[str, object]:
    """One training record (its fields: datasets/guardian/README.md); `extra` fields come last."""
    label = "benign" if kind == "benign" else "injection"
    fields = {"text": text, "label": label, "kind": kind, "surface": surface, "lang": lang, "part": part}
    return {**fields, "payload": payload, **extra}


class RecordMaker(Protocol):
    rng: random.Random

    def record(self, kind: str, part: str) -> dict[str, object]: ...


def draw(composer: RecordMaker, counts: dict[str, int]) -> list[dict[str, object]]:
    """`counts[kind]` records of each kind from `composer`, each text once, about a fifth in the calibration part
    (a record's part is drawn first; the composer builds it from that part's pool items only), shuffled."""
    records: list[dict[str, object]] = []
    seen: set[str] = set()
    for kind, count in counts.items():
        made, attempts = 0, 0
        while made < count and attempts < count * 5:
            attempts += 1
            part = "calib" if composer.rng.random() < 1 / CALIB_MOD else "fit"
            record = composer.record(kind, part)
            if str(record["text"]) in seen:
                continue
            seen.add(str(record["text"]))
            records.append(record)
            made += 1
    composer.rng.shuffle(records)
    return records


def compose(seed: int, counts: dict[str, int]) -> list[dict[str, object]]:
    """`counts[kind]` records of each kind, a fifth of them (by pool item) in the calibration part."""
    return draw(Composer(seed), counts)


def write(records: list[dict[str, object]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".tmp")
    # mtime=0: the same records give the same bytes, so a rerun shows no change in git.
    with temporary.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as handle:
        for record in records:
            handle.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
    temporary.replace(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("datasets/guardian/train.jsonl.gz"))
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    records = compose(args.seed, COUNTS)
    write(records, args.out)
    print(f"wrote {len(records)} records to {args.out}")


if __name__ == "__main__":
    main()
