"""What the Searcher's tools return: compact lists a model can read cheaply."""

from __future__ import annotations

from pydantic import BaseModel


class WebResult(BaseModel):
    title: str
    url: str
    description: str = ""
    age: str | None = None
    source: str | None = None


class NewsResult(WebResult):
    """A news article: a web result whose `source` is the outlet's site."""


class ImageResult(BaseModel):
    title: str
    url: str
    """The page the image is on."""
    image_url: str | None = None
    thumbnail_url: str | None = None
    source: str | None = None
    width: int | None = None
    height: int | None = None


class SearchResults(BaseModel):
    query: str
    count: int
    results: list[WebResult]
    note: str | None = None
    """Set when an argument was not understood and the search ran without it (see `server._freshness`)."""


class NewsResults(BaseModel):
    query: str
    count: int
    results: list[NewsResult]
    note: str | None = None


class ImageResults(BaseModel):
    query: str
    count: int
    results: list[ImageResult]


class FetchedPage(BaseModel):
    url: str
    final_url: str
    title: str | None = None
    content_type: str
    content: str
    length: int
    """Characters of the whole extracted text, before truncation."""
    truncated: bool
