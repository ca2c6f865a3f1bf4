"""Issue pages: list, create, edit, comment (threaded); user content is always escaped."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from hangar.hub.pages.rendering import render_markdown


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "page has no CSRF field"
    return match.group(1)


def test_create_edit_and_comment_through_the_forms(browser_client: TestClient) -> None:
    form = browser_client.get("/issues/new")
    assert form.status_code == 200
    created = browser_client.post(
        "/issues/new",
        data={
            "csrf_token": csrf_of(form.text),
            "title": "Page issue",
            "description": "Some **bold** text",
            "status": "todo",
            "priority": "medium",
            "labels": "ui, web",
            "startDate": "",
            "dueDate": "2026-12-31",
        },
        follow_redirects=False,
    )
    assert created.status_code == 303
    assert created.headers["location"] == "/issues/HGR-1"
    detail = browser_client.get("/issues/HGR-1")
    assert "<strong>bold</strong>" in detail.text
    assert "2026-12-31" in detail.text

    edit = browser_client.get("/issues/HGR-1/edit")
    assert 'value="ui, web"' in edit.text
    saved = browser_client.post(
        "/issues/HGR-1/edit",
        data={
            "csrf_token": csrf_of(edit.text),
            "title": "Renamed issue",
            "description": "",
            "status": "done",
            "priority": "medium",
            "labels": "web",
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303
    issue = browser_client.get("/api/issues/HGR-1").json()
    assert (issue["title"], issue["status"], issue["labels"]) == ("Renamed issue", "done", ["web"])

    page = browser_client.get("/issues/HGR-1")
    first = browser_client.post(
        "/issues/HGR-1/comments",
        data={"csrf_token": csrf_of(page.text), "body": "Top comment"},
        follow_redirects=False,
    )
    assert first.status_code == 303
    top_id = browser_client.get("/api/issues/HGR-1/comments").json()["comments"][0]["id"]
    browser_client.post(
        "/issues/HGR-1/comments",
        data={"csrf_token": csrf_of(page.text), "body": "Nested reply", "parentId": top_id},
    )
    html = browser_client.get("/issues/HGR-1").text
    nested = re.search(
        r'id="comment-' + top_id + r'".*?<ul class="comments">.*?Nested reply', html, re.S
    )
    assert nested, "the reply is rendered inside its parent's thread"


def test_invalid_form_input_re_renders_with_the_message(browser_client: TestClient) -> None:
    form = browser_client.get("/issues/new")
    response = browser_client.post(
        "/issues/new",
        data={"csrf_token": csrf_of(form.text), "title": "t", "dueDate": "someday"},
    )
    assert response.status_code == 400
    assert "due date must be a date" in response.text
    assert 'value="t"' in response.text


def test_user_content_is_escaped_everywhere(browser_client: TestClient) -> None:
    page = browser_client.get("/issues/new")
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    browser_client.post(
        "/issues/new",
        data={
            "csrf_token": csrf_of(page.text),
            "title": evil,
            "description": evil + "\n\n[click](javascript:alert(1))",
            "labels": "<b>label</b>",
        },
    )
    for url in ("/issues", "/issues/HGR-1", "/issues/HGR-1/edit"):
        html = browser_client.get(url).text
        assert "<script>alert" not in html, url
        assert "<img src=x" not in html, url
        assert "<b>label</b>" not in html, url
        assert 'href="javascript:' not in html, url
        assert "&lt;script&gt;" in html, url


def test_markdown_renderer_disables_raw_html() -> None:
    html = str(render_markdown("<div onclick=x>hi</div>\n\n*ok* [a](javascript:alert(1))"))
    assert "<div" not in html
    assert "<em>ok</em>" in html
    assert 'href="javascript:' not in html


def test_issue_list_filters(browser_client: TestClient) -> None:
    page = browser_client.get("/issues/new")
    for title, status in (("open one", "todo"), ("closed one", "done")):
        browser_client.post(
            "/issues/new",
            data={"csrf_token": csrf_of(page.text), "title": title, "status": status},
        )
    html = browser_client.get("/issues?status=done").text
    assert "closed one" in html
    assert "open one" not in html
    assert "open one" in browser_client.get("/issues?q=open").text
