"""Memorizer settings: where the database and exports live, search weights, and the utility model.

The embedding variables (`EMBEDDING_PROVIDER`, `EMBEDDING_MODEL`, `OLLAMA_HOST`, ...) come from
`shared.embeddings.EmbeddingSettings`, so one set of variables configures every process that embeds.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator

from shared.embeddings.base import EmbeddingSettings
from shared.litellm_loader import model_api_base

DEFAULT_UTILITY_MODEL = "ollama_chat/qwen2.5:7b"
"""The shipped default agent's model: fact extraction and synthesis use it unless UTILITY_MODEL says otherwise."""


class MemorizerSettings(EmbeddingSettings):
    memory_db_path: Path | None = Field(
        default=None, description="SQLite file (default $ANNABELLE_HOME/data/memory.db)."
    )
    memory_export_path: Path | None = Field(
        default=None, description="Folder export_memory writes to (default $ANNABELLE_HOME/memory-export)."
    )
    filer_workspace: Path | None = Field(
        default=None,
        description="The Filer's workspace (default $ANNABELLE_HOME/workspace): import/export may also use it.",
    )
    memory_vector_weight: float = Field(default=0.6, ge=0, le=1, description="Weight of vector similarity.")
    memory_text_weight: float = Field(default=0.4, ge=0, le=1, description="Weight of full-text (BM25) relevance.")
    memory_key_weight: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="Bonus for facts whose subject and attribute match what the query asks (where someone lives, "
        "the user's manager), added to the hybrid score.",
    )
    memory_similarity_threshold: float = Field(
        default=0.6, gt=0, le=1, description="Keyword overlap at which store_fact reports similar existing facts."
    )
    fact_extraction_enabled: bool = Field(
        default=True, description="store_conversation asks the utility model for facts in the exchange."
    )
    memory_model_decisions: bool = Field(
        default=False,
        description="Ask the utility model whether a new fact updates a related stored one when the rules cannot "
        "tell (one model call on such stores); off: rules only.",
    )
    utility_model: str | None = Field(
        default=DEFAULT_UTILITY_MODEL,
        description="litellm model for fact extraction and synthesis; empty disables those features.",
    )
    utility_api_base: str | None = Field(
        default=None, description="Server of the utility model (default OLLAMA_HOST for ollama models)."
    )
    utility_api_key: SecretStr | None = Field(
        default=None, description="Key for the utility model; else the provider's usual variable."
    )

    @field_validator("memory_db_path", "memory_export_path", "filer_workspace", mode="after")
    @classmethod
    def _absolute(cls, value: Path | None) -> Path | None:
        return None if value is None else value.expanduser().absolute()

    @model_validator(mode="after")
    def _weights_not_both_zero(self) -> MemorizerSettings:
        if self.memory_vector_weight == 0 and self.memory_text_weight == 0:
            raise ValueError("MEMORY_VECTOR_WEIGHT and MEMORY_TEXT_WEIGHT cannot both be 0")
        return self

    @property
    def db_path(self) -> Path:
        return self.memory_db_path or self.data_dir / "memory.db"

    @property
    def export_path(self) -> Path:
        return self.memory_export_path or self.annabelle_home / "memory-export"

    @property
    def workspace(self) -> Path:
        return self.filer_workspace or self.annabelle_home / "workspace"

    @property
    def utility_api_base_or_default(self) -> str | None:
        if not self.utility_model:
            return self.utility_api_base
        return model_api_base(self.utility_model, self.utility_api_base, self.ollama_host)
