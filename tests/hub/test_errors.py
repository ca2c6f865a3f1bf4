"""One JSON error shape for every 4xx and 5xx: {"error": {"code", "message", "details?"}}."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient


def assert_error_shape(response_json: object) -> dict[str, object]:
    assert isinstance(response_json, dict)
    assert set(response_json) == {"error"}
    error = response_json["error"]
    assert isinstance(error, dict)
    assert set(error) <= {"code", "message", "details"}
    assert isinstance(error["code"], str) and error["code"]
    assert isinstance(error["message"], str) and error["message"]
    return error


def test_4xx_answers_share_the_shape(client: TestClient) -> None:
    cases = [
        (client.get("/api/issues/HGR-999"), 404, "not_found"),
        (client.get("/api/nope"), 404, "not_found"),
        (client.delete("/api/issues"), 405, "method_not_allowed"),
        (client.post("/api/issues", json={}), 422, "invalid_request"),
        (
            client.post(
                "/api/issues", content=b"{not json", headers={"content-type": "application/json"}
            ),
            422,
            "invalid_request",
        ),
        (client.post("/api/issues", json={"title": "x", "status": "?"}), 400, "bad_request"),
        (
            client.post("/api/runtime-work/transcript", json={"deviceId": "d"}),
            422,
            "invalid_request",
        ),
    ]
    for response, status, code in cases:
        assert response.status_code == status, response.text
        assert assert_error_shape(response.json())["code"] == code


def test_not_found_carries_details(client: TestClient) -> None:
    error = assert_error_shape(client.get("/api/issues/HGR-7").json())
    assert error["details"] == {"kind": "issue", "key": "HGR-7"}


def test_unhandled_errors_are_500_in_the_same_shape_without_a_traceback(
    hub_app: FastAPI, client: TestClient
) -> None:
    def explode() -> None:
        raise RuntimeError("secret internal detail")

    hub_app.add_api_route("/api/test-explode", explode)
    response = client.get("/api/test-explode")
    assert response.status_code == 500
    error = assert_error_shape(response.json())
    assert error["code"] == "internal_error"
    assert "secret" not in response.text
    assert "Traceback" not in response.text


def test_routes_of_a_missing_executor_rpc_answer_501(client: TestClient) -> None:
    """RPCs the device's executor lacks answer 501 not_supported, never fake data."""
    response = client.post(
        "/api/runtime-work/archived-conversations/cleanup-preview",
        json={"items": [{"deviceId": "nope", "localTaskId": "x"}]},
    )
    assert response.status_code in {404, 501}
    assert assert_error_shape(response.json())["code"] in {"device_unavailable", "not_supported"}


def test_unknown_device_is_a_clear_404(client: TestClient) -> None:
    response = client.post(
        "/api/runtime-work/transcript", json={"deviceId": "elsewhere", "localTaskId": "t"}
    )
    assert response.status_code == 404
    error = assert_error_shape(response.json())
    assert error["code"] == "device_unavailable"
    assert error["details"] == {"deviceId": "elsewhere"}


def test_html_pages_show_errors_as_html(browser_client: TestClient) -> None:
    response = browser_client.get("/issues/HGR-5", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "issue not found: HGR-5" in response.text
