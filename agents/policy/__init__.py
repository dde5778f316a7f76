"""``policy:PATH``: an agent that plays from a trained stable-baselines3 model.

Learned agents work on observations through the env codec (architecture.md,
"Agents"): for the pending decision the agent builds the same observation the
Gymnasium env gives a learner of the deciding side (``ObservationEncoder``), the
same mask (``ActionCodec.legal_map`` over ``ruleset.legal_actions``) and asks
the model's policy for its action distribution with illegal slots masked out.
It then plays the most probable legal action (``deterministic=True``, the
default) or samples one with the agent's ``rng`` — never a global RNG. A greedy decision
runs the MLP as numpy (``mlp``); two legal logits within ``mlp.TIE`` of each other go to
torch, so the action is the one torch would pick.

A model saved by ``escaramuza train`` carries ``escaramuza.json`` inside its zip
(ruleset, env id, side, static limits, algorithm), so the file alone is enough.
A bare SB3 zip without it is accepted too: the ruleset is found from its action
space size under the default limits and the algorithm by trying MaskablePPO,
then PPO.

Loading never unpickles. stable-baselines3's own ``load``
unpickles the ``:serialized:`` entries of the zip's ``data`` file, so a crafted
zip would run any code it likes. Instead the policy network is rebuilt here from
an allow-list: its class (read from the pickle's opcodes, never executed), its
``policy_kwargs`` from the plain JSON, its spaces from the env codec of the saved
ruleset and limits, and its weights from ``policy.pth`` with
``torch.load(weights_only=True)``. Every pickle in ``data`` is also scanned (again
without running it) and a file naming anything but the data classes SB3 stores is
refused: a policy file never needs more, so that is tampering or pickled code.
``trust=True`` (the CLI's ``--trust-policy``) loads a file with SB3's ``load`` as
before, for a model the user made or fully trusts (docs/training.md, "Trust").

torch and stable-baselines3 are imported only when a policy is loaded, so
``escaramuza.agents`` stays light for the CLI and the playtest workers.

The package: ``meta`` (the metadata), ``safe_load`` (reading a zip without running it: the
security boundary), ``loading`` (the two loaders, the cache, the shipped policies) and
``agent`` (the agent, its spec and the masked probabilities) and ``mlp`` (the numpy copy
of the network for greedy decisions and the planner's guide).
"""

from __future__ import annotations

from escaramuza.agents.policy.agent import (
    PREFIX,
    TRUST_POLICY_HELP,
    PolicyAgent,
    add_trust_option,
    greedy_slot,
    masked_probabilities,
    parse_policy_spec,
)
from escaramuza.agents.policy.loading import (
    SHIPPED_DIR,
    LoadedPolicy,
    load_model,
    resolve_policy,
    shipped_policies,
)
from escaramuza.agents.policy.meta import (
    META_FORMAT,
    META_NAME,
    PolicyMeta,
    check_sizes,
    read_meta,
    write_meta,
)
from escaramuza.agents.policy.safe_load import (
    ACTIVATIONS,
    MAX_DATA_BYTES,
    MAX_META_BYTES,
    MAX_WEIGHTS_BYTES,
    POLICY_CLASSES,
    RESUME_REBUILT,
    TRUST_HINT,
    Checkpoint,
    UntrustedPolicyError,
    checkpoint_objects,
    pickle_globals,
    read_checkpoint,
)

__all__ = [
    "ACTIVATIONS",
    "MAX_DATA_BYTES",
    "MAX_META_BYTES",
    "MAX_WEIGHTS_BYTES",
    "META_FORMAT",
    "META_NAME",
    "POLICY_CLASSES",
    "PREFIX",
    "RESUME_REBUILT",
    "SHIPPED_DIR",
    "TRUST_HINT",
    "TRUST_POLICY_HELP",
    "Checkpoint",
    "LoadedPolicy",
    "PolicyAgent",
    "PolicyMeta",
    "UntrustedPolicyError",
    "add_trust_option",
    "check_sizes",
    "checkpoint_objects",
    "greedy_slot",
    "load_model",
    "masked_probabilities",
    "parse_policy_spec",
    "pickle_globals",
    "read_checkpoint",
    "read_meta",
    "resolve_policy",
    "shipped_policies",
    "write_meta",
]
