"""The vector trainer: masked PPO on a native vector environment, saving the MaskablePPO model that
evaluate, --resume and the sb3 trainer load."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

from tabletop_gym.training import vector_ppo  # noqa: E402
from tabletop_gym.training.cli import main  # noqa: E402
from tabletop_gym.training.train import choose_trainer  # noqa: E402

CRIBBAGE = "tabletop/Cribbage-v0"
SMALL = ["--n-envs", "8", "--no-progress", "--checkpoint-every", "0"]  # 8 games x 32 steps a rollout


def _model(n_envs: int = 4, pile_size: int = 13, seed: int = 0, **ppo) -> tuple[MaskablePPO, object]:
    native = vector_ppo.make_vector_env(CRIBBAGE, {"pile_size": pile_size}, n_envs)
    settings = {"n_steps": 16, "batch_size": 32, "n_epochs": 2, "gamma": 1.0, **ppo}
    model = MaskablePPO("MlpPolicy", vector_ppo.spaces_env(native), seed=seed, device="cpu",
                        policy_kwargs={"net_arch": [16, 16]}, **settings)
    return model, native


def _observations(n: int = 12, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    native = vector_ppo.make_vector_env(CRIBBAGE, {}, n)
    observations, _ = native.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(20):  # positions a few cards in, with some piles illegal
        masks = native.action_masks()
        observations, *_ = native.step((rng.random(masks.shape) * masks).argmax(axis=1))
    return observations, native.action_masks()


def test_the_network_computes_the_policys_own_probabilities_and_values() -> None:
    model, _ = _model()
    network = vector_ppo.Network(model.policy)
    assert network.one_hot  # Cribbage's MultiDiscrete observation takes the one-hot shortcut
    observations, masks = _observations()
    logits, values = network(network.inputs(observations))
    probs = vector_ppo.masked_log_probs(logits, torch.as_tensor(masks)).exp()
    obs = torch.as_tensor(observations)
    with torch.no_grad():
        expected = model.policy.get_distribution(obs, action_masks=masks).distribution.probs
        expected_values = model.policy.predict_values(obs).flatten()
    torch.testing.assert_close(probs.detach(), expected, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(values.detach(), expected_values, rtol=1e-5, atol=1e-5)
    assert (probs[~torch.as_tensor(masks)] == 0).all()


def test_the_one_hot_shortcut_has_the_gradient_of_the_matrix_product() -> None:
    model, _ = _model()
    network = vector_ppo.Network(model.policy)
    observations, _ = _observations()
    first = model.policy.mlp_extractor.policy_net[0]
    logits, values = network(network.inputs(observations))
    (logits.sum() + values.sum()).backward()
    shortcut = first.weight.grad.clone()
    first.weight.grad = None
    from stable_baselines3.common.preprocessing import preprocess_obs

    dense = preprocess_obs(torch.as_tensor(observations), model.observation_space)
    features = model.policy.features_extractor(dense)
    latent_pi, latent_vf = model.policy.mlp_extractor(features)
    (model.policy.action_net(latent_pi).sum() + model.policy.value_net(latent_vf).sum()).backward()
    torch.testing.assert_close(shortcut, first.weight.grad, rtol=1e-5, atol=1e-5)


def test_train_writes_a_model_that_evaluate_loads_and_gives_the_trainers_probabilities(tmp_path) -> None:
    out = tmp_path / "run"
    assert main(["train", "cribbage", "--steps", "300", "--seed", "2", "--out", str(out), *SMALL]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["trainer"] == "vector" and config["algorithm"] == "MaskablePPO"
    assert config["n_envs"] == 8 and config["steps_done"] >= 300 and config["interrupted"] is False
    # The saved model is sb3-contrib's own: it loads without an environment, and its policy gives the
    # probabilities the trainer's network gives with the weights saved.
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    assert model.num_timesteps == config["steps_done"]
    assert model.policy.mlp_extractor.policy_net[0].out_features == config["net_arch"][0]
    observations, masks = _observations()
    network = vector_ppo.Network(model.policy)
    with torch.no_grad():
        logits, _ = network(network.inputs(observations))
        ours = vector_ppo.masked_log_probs(logits, torch.as_tensor(masks)).exp()
        theirs = model.policy.get_distribution(torch.as_tensor(observations), masks).distribution.probs
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    evaluation = tmp_path / "eval"
    argv = ["evaluate", "cribbage", "--suite", "cribbage-v0", "--episodes", "2", "--agent", str(out),
            "--out", str(evaluation), "--no-progress"]
    assert main(argv) == 0
    entry = json.loads((evaluation / "evaluation.json").read_text())["agents"][str(out)]
    assert len(entry["scores"]) == 2 and 0 < entry["mean_ratio"] <= 1


def test_resume_continues_the_saved_model_and_the_same_seed_repeats_a_run(tmp_path) -> None:
    first, again = tmp_path / "first", tmp_path / "again"
    for out in (first, again):
        assert main(["train", "cribbage", "--steps", "200", "--out", str(out), *SMALL]) == 0
    weights = [MaskablePPO.load(out / "model.zip").policy.state_dict() for out in (first, again)]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    done = json.loads((first / "config.json").read_text())["steps_done"]
    more = ["train", "cribbage", "--steps", str(done + 300), "--out", str(first), "--resume"]
    assert main(more + SMALL) == 0
    config = json.loads((first / "config.json").read_text())
    assert config["resumed_at_step"] == done and config["steps_done"] >= done + 300
    resumed = MaskablePPO.load(first / "model.zip").policy.state_dict()
    assert resumed.keys() == weights[0].keys()
    assert not all(torch.equal(resumed[k], weights[0][k]) for k in resumed)  # it trained on
    # The sb3 trainer continues the same model too: one model format, two ways to collect rollouts.
    argv = ["train", "cribbage", "--steps", str(config["steps_done"] + 64), "--out", str(first), "--resume",
            "--trainer", "sb3", "--n-envs", "2", "--no-progress", "--checkpoint-every", "0"]
    assert main(argv) == 0
    assert json.loads((first / "config.json").read_text())["trainer"] == "sb3"


def test_a_run_killed_outright_leaves_its_settings_and_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    from tabletop_gym.training import train as train_module

    out = tmp_path / "killed"
    real = train_module._learn_vector

    def killed(model, native_env, steps, seed, callbacks, progress):
        real(model, native_env, 256, seed, callbacks, progress)
        raise SystemExit("killed")  # what a kill looks like to the run: no handler of its own runs

    monkeypatch.setattr(train_module, "_learn_vector", killed)
    argv = ["train", "cribbage", "--steps", "2000", "--out", str(out), "--n-envs", "8", "--no-progress",
            "--checkpoint-every", "64"]
    with pytest.raises(SystemExit):
        main(argv)
    assert not (out / "model.zip").exists() and (out / "checkpoint.zip").is_file()
    config = json.loads((out / "config.json").read_text())
    assert config["interrupted"] is True and config["env_id"] == CRIBBAGE and config["steps"] == 2000
    monkeypatch.setattr(train_module, "_learn_vector", real)
    assert main(argv + ["--resume"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["interrupted"] is False and config["resumed_at_step"] >= 256
    assert config["steps_done"] >= 2000


def test_a_few_thousand_steps_beat_random_play_on_small_piles() -> None:
    torch.manual_seed(0)
    model, native = _model(n_envs=64, pile_size=3, learning_rate=3e-3, n_steps=8, batch_size=128,
                           n_epochs=4)
    vector_ppo.learn(model, native, 6_000, seed=0)
    assert 6_000 <= model.num_timesteps < 6_000 + 64 * 8

    def mean_score(choose) -> float:
        games = vector_ppo.make_vector_env(CRIBBAGE, {"pile_size": 3}, 256)
        observations, info = games.reset(seed=1000)
        network = vector_ppo.Network(model.policy)
        for _ in range(12):  # 12 cards: every game ends at the 12th step
            masks = torch.as_tensor(games.action_masks())
            with torch.no_grad():
                logits, _ = network(network.inputs(observations))
            observations, _, terminated, _, info = games.step(choose(logits, masks).numpy())
        assert terminated.all()
        return float(info["score"].mean())

    generator = torch.Generator().manual_seed(0)
    trained = mean_score(lambda logits, masks: vector_ppo.masked_log_probs(logits, masks).argmax(1))
    chance = mean_score(
        lambda logits, masks: (torch.rand(masks.shape, generator=generator) * masks).argmax(1)
    )
    assert trained > chance + 1.0, (trained, chance)


def test_the_trainer_is_chosen_by_the_id_and_a_trainer_that_cannot_run_is_refused(tmp_path, capsys) -> None:
    assert choose_trainer(None, CRIBBAGE, self_play=False, vector_default=True) == "vector"
    assert choose_trainer(None, CRIBBAGE, self_play=True, vector_default=True) == "sb3"
    assert choose_trainer("sb3", CRIBBAGE, self_play=False, vector_default=True) == "sb3"
    # A game whose vector trainer's learning is unchecked keeps MaskablePPO unless told.
    assert choose_trainer(None, "tabletop/War-v0", self_play=False) == "sb3"
    assert choose_trainer("vector", "tabletop/War-v0", self_play=False) == "vector"
    assert choose_trainer(None, "tabletop/ModernArt-v0", self_play=False) == "sb3"
    with pytest.raises(ValueError, match="needs a native vector environment, which tabletop/ModernArt-v0"):
        choose_trainer("vector", "tabletop/ModernArt-v0", self_play=False)
    with pytest.raises(ValueError, match="--self-play trains with --trainer sb3"):
        choose_trainer("vector", CRIBBAGE, self_play=True)
    with pytest.raises(ValueError, match="unknown trainer 'ppo'"):
        choose_trainer("ppo", CRIBBAGE, self_play=False)
    out = str(tmp_path / "run")
    for bad in (["--trainer", "jax"], ["--n-envs", "0"], ["--n-envs", "4097"]):
        with pytest.raises(SystemExit) as exit_:
            main(["train", "cribbage", *bad, "--out", out])
        assert exit_.value.code == 2
    assert "invalid choice: 'jax'" in capsys.readouterr().err
    argv = ["train", "modern_art", "--trainer", "vector", "--steps", "10", "--out", out, "--no-progress"]
    assert main(argv) == 2
    assert "needs a native vector environment" in capsys.readouterr().err
    with pytest.raises(RuntimeError, match="only describes spaces"):
        vector_ppo.spaces_env(vector_ppo.make_vector_env(CRIBBAGE, {}, 2)).reset()
