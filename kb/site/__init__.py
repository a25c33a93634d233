"""The docs site: pages generated from the case and family folders."""
