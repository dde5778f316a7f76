"""The Cicatrices table (CA-13), as data.

"Si el daño a un PJ reduce sus PI exactamente a 0, busca el resultado en la
siguiente tabla, consultando la cantidad de PI perdidos en el ataque." The seed
omits the table itself; the entries are the published game's *(ext)*, 1–12,
and a loss of 12 or more reads entry 12 *(default)*. Effects are paraphrased.

``effect`` says what the engine simulates in a fight: ``out_of_action`` (the
PC is down), ``deprived`` (recorded as the ``privado`` condition;
nothing heals during a fight, so it changes no dice here), ``hamstrung``
(cannot move: no second move, no step before an attack, no retreat through a
neighbour zone). Every other entry is only recorded as an event with what happens after
the fight (the maximum-PI or attribute rolls are made on recovery, not here).

Entry 12 (Condenado, the book's "Doomed") is the one reading a GM may want to
change: in the published game the doomed PC survives the blow and death comes
for it later, so whether it is taken out of this fight is a choice, the
scenario option ``doomed`` (docs/rulesets/cairn.md, CA-13):

* ``out_of_action`` *(default, the engine's first reading)* — the PC is out of
  action, status ``down`` and condition ``fuera_de_accion``, as entry 11;
* ``event`` — the doom is only recorded (the ``ScarSuffered`` event); the PC
  stays in the fight at 0 PI, where the next damage goes to FUE with the CA-11
  save as for anyone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from escaramuza.rules.core.i18n import N_


@dataclass(frozen=True, slots=True)
class Scar:
    entry: int
    name: str
    text: str
    #: Fight effects the engine simulates (see the module docstring).
    effects: tuple[str, ...] = ()


CICATRICES: tuple[Scar, ...] = (
    Scar(
        1,
        "Cicatriz duradera",
        N_(
            "a lasting scar (roll d6 for where); on recovery roll d6 "
            "and keep it as max PI if higher"
        ),
    ),
    Scar(
        2,
        "Golpe aturdidor",
        N_(
            "a rattling blow, disoriented and shaken; on recovery roll d6 "
            "and keep it as max PI if higher"
        ),
    ),
    Scar(
        3,
        "Golpeado",
        N_("walloped, sent flying and winded: privado until a few hours' rest; then +d6 max PI"),
        ("deprived",),
    ),
    Scar(
        4,
        "Miembro roto",
        N_(
            "a broken limb (d6: leg, arm, rib, skull); once mended roll 2d6 "
            "and keep it as max PI if higher"
        ),
    ),
    Scar(
        5,
        "Infectado",
        N_("a gross infection; when over it roll 2d6 and keep it as max PI if higher"),
    ),
    Scar(
        6,
        "Herida en la cabeza",
        N_(
            "a reorienting head wound (d6: FUE, DES, VOL); roll 3d6 "
            "and keep it as that maximum if higher"
        ),
    ),
    Scar(
        7,
        "Desjarretado",
        N_(
            "hamstrung, can barely move until helped and rested; then 3d6 "
            "and keep it as max DES if higher"
        ),
        ("hamstrung",),
    ),
    Scar(
        8, "Ensordecido", N_("deafened until extraordinary aid; a VOL save may raise max VOL by d4")
    ),
    Scar(
        9,
        "Recerebrado",
        N_(
            "some hidden part of the psyche knocked loose; roll 3d6 and keep "
            "it as max VOL if higher"
        ),
    ),
    Scar(
        10,
        "Desgarrado",
        N_(
            "an appendage torn off or crippled (the Guardián says which); a VOL "
            "save may raise max VOL by d6"
        ),
    ),
    Scar(
        11,
        "Herida mortal",
        N_("a mortal wound: privado and out of action, dies within the hour unless healed"),
        ("deprived", "out_of_action"),
    ),
    Scar(12, "Condenado", N_("doomed: out of action, death's grip is near"), ("out_of_action",)),
)

#: The values of the ``doomed`` option; the first is the default.
DOOMED_READINGS: tuple[str, ...] = ("out_of_action", "event")

#: Entry 12 as each ``doomed`` reading has it.
_DOOMED: dict[str, Scar] = {
    "out_of_action": CICATRICES[11],
    "event": replace(
        CICATRICES[11],
        text=N_("doomed: death's grip is near, but it comes later — fights on at 0 PI"),
        effects=(),
    ),
}


def scar_for(pi_lost: int, doomed: str = DOOMED_READINGS[0]) -> Scar:
    """The entry read for ``pi_lost`` PI lost in the attack (≥ 12 reads 12, *(default)*).

    ``doomed`` is the scenario option that says what entry 12 does in the fight.
    """
    if pi_lost < 1:
        raise ValueError("a scar needs at least 1 PI lost")
    entry = min(pi_lost, len(CICATRICES))
    if entry == len(CICATRICES):
        return _DOOMED[doomed]
    return CICATRICES[entry - 1]


def scar_takes_out(pi_lost: int, doomed: str = DOOMED_READINGS[0]) -> bool:
    """Whether the entry for ``pi_lost`` takes the PC out of the fight (11, and 12 by default)."""
    return "out_of_action" in scar_for(pi_lost, doomed).effects
