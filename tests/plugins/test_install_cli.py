"""``hangar local-run provider install|list|remove|validate`` and discovery's name clashes."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hangar.cli.main import cli
from hangar.errors import UsageError
from hangar.localrun.plugins.discovery import PluginCollisionError, discover
from hangar.localrun.providers.codex import CodexProvider
from hangar.localrun.providers.registry import provider_for

from .conftest import write_plugin


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["local-run", "provider", *args], catch_exceptions=False)


def test_install_list_run_lookup_and_remove(
    plugin_factory: Callable[..., Path], hangar_home: Path
) -> None:
    """LR-131/LR-133/LR-136/LR-137/LR-193: install copies the folder (run bit kept), list shows
    it, `hangar run -- NAME` finds it, remove moves it to the trash."""
    source = plugin_factory("grok")
    (source / "lib").mkdir()
    (source / "lib" / "helper.txt").write_text("data")
    (source / "helper-link").symlink_to("lib/helper.txt")
    (source / ".git").mkdir()
    (source / ".git" / "HEAD").write_text("ref: x")
    done = run("install", str(source))
    assert done.exit_code == 0, done.output
    assert "Installed Scripted grok as `grok`" in done.output
    installed = hangar_home / "localrun-providers" / "grok"
    assert (installed / "adapter").stat().st_mode & stat.S_IXUSR
    assert (installed / "helper-link").read_text() == "data"
    assert not (installed / "helper-link").is_symlink()  # copied as what it points to
    assert not (installed / ".git").exists()
    listed = json.loads(run("list", "--json").output)
    assert {"claude", "codex"} <= set(listed["builtins"])
    assert [(p["name"], p["origin"], p["problems"]) for p in listed["plugins"]] == [
        ("grok", "installed", [])
    ]
    assert "grok  Scripted grok  v1  (installed:" in run("list").output
    provider = provider_for("grok")
    assert provider.name == "grok" and provider.executables == ("grok",)
    again = run("install", str(source))
    assert again.exit_code == 2 and "pass --replace" in again.output
    assert run("install", "--replace", str(source)).exit_code == 0
    removed = run("remove", "grok")
    assert removed.exit_code == 0 and "kept in" in removed.output
    assert not installed.exists()
    assert len(list((hangar_home / "trash" / "localrun-providers").iterdir())) == 2
    with pytest.raises(UsageError, match="no local-run provider for `grok`"):
        provider_for("grok")
    assert run("remove", "grok").exit_code == 1


def test_install_refuses_a_symlink_that_leaves_the_folder(
    plugin_factory: Callable[..., Path], tmp_path: Path, hangar_home: Path
) -> None:
    source = plugin_factory("leaky")
    secret = tmp_path / "secret.txt"
    secret.write_text("do not copy")
    (source / "steal").symlink_to(secret)
    done = run("install", str(source))
    assert done.exit_code == 1
    assert f"{source / 'steal'}: symlink leads outside the plugin folder" in done.output
    assert not (hangar_home / "localrun-providers" / "leaky").exists()
    assert not list((hangar_home / "localrun-providers").glob(".install-*"))


def test_a_plugin_cannot_take_a_builtin_name(
    plugin_factory: Callable[..., Path], tmp_path: Path, hangar_home: Path
) -> None:
    """LR-139: never a silent shadow of a built-in: install refuses, and a manifest that claims
    it anyway (config or copied by hand) makes `hangar run -- codex` an error naming it."""
    source = plugin_factory("codex")
    refused = run("install", str(source))
    assert refused.exit_code == 1
    assert "belongs to the built-in provider 'codex'" in refused.output
    assert str(source / "provider.json") in refused.output
    hangar_home.mkdir(exist_ok=True)
    (hangar_home / "config.toml").write_text(
        f'[localrun_providers.codex]\nmanifest_path = "{source / "provider.json"}"\n'
    )
    with pytest.raises(PluginCollisionError) as caught:
        provider_for("codex")
    assert str(source / "provider.json") in str(caught.value)
    assert "config.toml localrun_providers.codex" in str(caught.value)
    assert provider_for("claude").name == "claude"  # other names are unaffected
    listed = json.loads(run("list", "--json").output)
    assert "belongs to the built-in provider" in listed["plugins"][0]["problems"][0]
    (hangar_home / "config.toml").write_text(
        f'[localrun_providers.codex]\nmanifest_path = "{source}"\nenabled = false\n'
    )
    assert provider_for("codex") is CodexProvider  # a disabled entry claims nothing


def test_two_plugins_with_one_name_are_both_named(
    plugin_factory: Callable[..., Path], tmp_path: Path, hangar_home: Path
) -> None:
    """LR-134/LR-138/LR-139: config entries and installed plugins are found in that order; a
    shared name is an error naming both manifests."""
    installed = plugin_factory("hermes")
    assert run("install", str(installed)).exit_code == 0
    dev = write_plugin(hangar_home.parent / "dev" / "hermes", "hermes")
    # a relative manifest path resolves against the config file's folder
    hangar_home.joinpath("config.toml").write_text(
        '[localrun_providers.hermes]\nmanifest_path = "../dev/hermes/provider.json"\n'
        "enabled = true\n"
    )
    found = discover()
    assert [(e.origin, e.name) for e in found.entries] == [
        ("config", "hermes"),
        ("installed", "hermes"),
    ]
    with pytest.raises(PluginCollisionError) as caught:
        provider_for("hermes")
    message = str(caught.value)
    assert "two local-run provider plugins are named 'hermes'" in message
    assert str(dev / "provider.json") in message
    assert str(hangar_home / "localrun-providers" / "hermes" / "provider.json") in message
    refused = run("install", "--replace", str(dev))
    assert refused.exit_code == 1 and "two local-run provider plugins" in refused.output


def test_config_entries_that_cannot_be_used_are_listed(
    plugin_factory: Callable[..., Path], hangar_home: Path
) -> None:
    folder = plugin_factory("real")
    hangar_home.mkdir(exist_ok=True)
    (hangar_home / "config.toml").write_text(
        "port = 9000\n"
        "[localrun_providers.bad]\nmanifest_path = 3\n"
        "[localrun_providers.wrongname]\n"
        f'manifest_path = "{folder / "provider.json"}"\n'
        "[localrun_providers.extra]\nmanifest_path = 'x'\ncolour = 'red'\n"
    )
    listed = json.loads(run("list", "--json").output)
    assert sorted(listed["configProblems"]) == sorted(
        [
            f"{hangar_home / 'config.toml'}: localrun_providers.bad: manifest_path must be a "
            "non-empty string",
            f"{hangar_home / 'config.toml'}: localrun_providers.wrongname: the manifest "
            f"{folder / 'provider.json'} is named 'real', not 'wrongname'",
            f"{hangar_home / 'config.toml'}: localrun_providers.extra: unknown field 'colour' "
            "(known: manifest_path, enabled)",
        ]
    )


def test_validate_reports_every_problem_and_exits_1(tmp_path: Path) -> None:
    folder = write_plugin(tmp_path / "p", "p", command="/abs/adapter")
    done = run("validate", str(folder))
    assert done.exit_code == 1
    assert "FAIL manifest:" in done.output and "command: must be a path relative" in done.output
    good = write_plugin(tmp_path / "good", "good")
    done = run("validate", str(good))
    assert done.exit_code == 0, done.output
    assert "PASS manifest" in done.output and "PASS name: 'good' is free" in done.output


def test_list_reports_a_broken_installed_manifest(hangar_home: Path) -> None:
    folder = hangar_home / "localrun-providers" / "broken"
    folder.mkdir(parents=True)
    (folder / "provider.json").write_text("{not json")
    out = run("list").output
    assert "problem: (file): not valid JSON" in out
