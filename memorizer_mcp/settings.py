"""Memorizer settings: where the database and exports live, search weights, and the utility model.

The embedding variables (`EMBEDDING_PROVIDER`, `EMBEDDING_MODEL`, `OLLAMA_HOST`, ...) come from
`shared.embeddings.EmbeddingSettings`, so one set of variables configures every process that embeds.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator, model_validator

from shared.embeddings.base import EmbeddingSettings
from shared.settings import AgentsFileSettings, UtilityModelSettings, WorkspaceSettings


class MemorizerSettings(EmbeddingSettings, WorkspaceSettings, UtilityModelSettings, AgentsFileSettings):
    memory_db_path: Path | None = Field(
        default=None, description="SQLite file (default $ANNABELLE_HOME/data/memory.db)."
    )
    memory_export_path: Path | None = Field(
        default=None, description="Folder export_memory writes to (default $ANNABELLE_HOME/memory-export)."
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

    @field_validator("memory_db_path", "memory_export_path", mode="after")
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
