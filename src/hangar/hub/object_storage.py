"""Object storage for archive transfers (RW-314, RW-317): any S3-compatible store, through
the S3 API (boto3, imported only when a store is configured).

Only the hub holds the credentials: a device gets a presigned ``PUT`` (the source) or ``GET``
(the target) URL for one object, ``transfers/<transferId>.tar.gz``, valid for
:data:`URL_SECONDS`; the hub deletes the object after the import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hangar.settings import Settings

URL_SECONDS = 900


@dataclass(frozen=True)
class ObjectStorage:
    url: str
    bucket: str
    region: str
    access_key: str
    secret_key: str

    @classmethod
    def from_settings(cls, settings: Settings) -> ObjectStorage | None:
        """The configured store, or ``None`` (no ``transfer_storage_url``)."""
        url = str(settings.transfer_storage_url or "")
        if not url:
            return None
        return cls(
            url=url,
            bucket=str(settings.transfer_storage_bucket),
            region=str(settings.transfer_storage_region or "us-east-1"),
            access_key=str(settings.transfer_storage_access_key),
            secret_key=str(settings.transfer_storage_secret_key),
        )

    def _client(self) -> Any:
        import boto3  # type: ignore[import-untyped]  # only a hub with object storage needs it
        from botocore.config import Config  # type: ignore[import-untyped]

        return boto3.client(
            "s3",
            endpoint_url=self.url,
            region_name=self.region,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            config=Config(signature_version="s3v4", s3={"addressing_style": "path"}),
        )

    @staticmethod
    def key(transfer_id: str) -> str:
        return f"transfers/{transfer_id}.tar.gz"

    def presigned(self, method: str, transfer_id: str) -> str:
        """A URL for ``put_object`` or ``get_object`` of the transfer's object."""
        url: str = self._client().generate_presigned_url(
            method,
            Params={"Bucket": self.bucket, "Key": self.key(transfer_id)},
            ExpiresIn=URL_SECONDS,
        )
        return url

    def delete(self, transfer_id: str) -> None:
        self._client().delete_object(Bucket=self.bucket, Key=self.key(transfer_id))
