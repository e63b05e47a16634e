"""v1 trainer package: config_parser (this team member), data providers and the CLI (others)."""
