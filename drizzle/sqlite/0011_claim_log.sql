CREATE TABLE `leaf_claim` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`biz_tag` text(128) NOT NULL,
	`first_id` integer NOT NULL,
	`last_id` integer NOT NULL,
	`claimed_at` integer NOT NULL,
	`kind` text(16) NOT NULL,
	`claimer` text(255) NOT NULL,
	`instance` text(64) NOT NULL,
	`serving_first` integer,
	`leased_max` integer,
	`tail_ms` integer NOT NULL,
	`region` integer NOT NULL,
	`regions` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `leaf_claim_tag_instance` ON `leaf_claim` (`biz_tag`,`instance`,`claimed_at`);